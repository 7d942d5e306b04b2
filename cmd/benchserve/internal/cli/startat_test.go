package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// TestStartAtAlignsShards: two shard processes launched 3 s apart with
// one --start-at send their first requests within 1 s of each other (or
// of how late a shard says it started), as the fixture received them, and
// both record the instant. Each shard
// sends with its own API key, so the fixture's log tells them apart.
func TestStartAtAlignsShards(t *testing.T) {
	if testing.Short() {
		t.Skip("launches two benchserve processes 3 s apart")
	}
	const launchGap, runID = 3 * time.Second, "5ca1ab1e"
	srv := fixtures.Start(t, fixtures.Options{MaxLoggedRequests: -1})
	dir := t.TempDir()
	workload := smokeWithoutSLO(t, dir)
	startAt := time.Now().Add(launchGap + 2*time.Second).Truncate(time.Millisecond)

	outs := make([]string, 2)
	cmds := make([]*exec.Cmd, 2)
	for i := range cmds {
		if i > 0 {
			time.Sleep(launchGap)
		}
		outs[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		cmds[i] = exec.CommandContext(t.Context(), os.Args[0], "--url", srv.URL, "--workload", workload,
			"--api-key", []string{"key-a", "key-b"}[i], "--request-rate", "inf", "--num-prompts", "4",
			"--shard", fmt.Sprintf("%d/2", i), "--run-id", runID, "--output", outs[i])
		// The start time from the environment, as a scheduler passes it.
		cmds[i].Env = append(os.Environ(), cliChildEnv+"=1", envStartAt+"="+startAt.Format(time.RFC3339Nano))
		var stderr strings.Builder
		cmds[i].Stderr = &stderr
		require.NoError(t, cmds[i].Start(), "start shard %d", i)
		t.Cleanup(func() { t.Logf("shard %d stderr:\n%s", i, stderr.String()) })
	}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "shard %d exits 0", i)
	}

	first := map[string]time.Time{}
	for _, r := range srv.ChatRequests() {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if at, ok := first[key]; !ok || r.Time.Before(at) {
			first[key] = r.Time
		}
	}
	require.Len(t, first, 2, "both shards sent: %v", first)
	a, b := first["key-a"], first["key-b"]
	skew := a.Sub(b).Abs()
	t.Logf("first requests: shard 0 %s, shard 1 %s (start at %s): skew %v", a.Format(time.RFC3339Nano), b.Format(time.RFC3339Nano), startAt.Format(time.RFC3339Nano), skew)
	// A busy machine wakes a process late by up to hundreds of ms; a third
	// of the launch gap still tells shards aligned from shards staggered.
	// A shard that started after the instant (its process took longer to
	// start than the margin) starts at once and records how late it was:
	// each is judged against what it says.
	const tolerance = launchGap / 3
	late := make([]time.Duration, 2)
	for i, at := range []time.Time{a, b} {
		assert.False(t, at.Before(startAt), "shard %d did not send before --start-at", i)
		p := readPayload(t, outs[i])
		require.NotNil(t, p.Schedule, "shard %d: schedule block", i)
		assert.Equal(t, startAt.UTC().Format(time.RFC3339Nano), p.Schedule.StartAt, "shard %d records the instant", i)
		require.NotNil(t, p.Schedule.StartLateMS, "shard %d records how late it started", i)
		assert.GreaterOrEqual(t, *p.Schedule.StartLateMS, 0.0, "shard %d: never early", i)
		late[i] = time.Duration(*p.Schedule.StartLateMS * float64(time.Millisecond))
		assert.Less(t, at.Sub(startAt.Add(late[i])).Abs(), tolerance, "shard %d's first request came when it says its load started (%v late)", i, late[i])
	}
	assert.Less(t, skew, tolerance+(late[0]-late[1]).Abs(),
		"launched %v apart, the shards' first requests arrive within %v of each other, or of what they say they were late by (%v, %v)", launchGap, tolerance, late[0], late[1])
}

// TestStartAtRefusals: --start-at is RFC 3339 with a zone, and an
// instant more than an hour gone is refused before anything is sent.
func TestStartAtRefusals(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	workload := filepath.Join("..", "..", "..", "..", "workloads", "examples", "smoke.json")
	for _, tc := range []struct{ name, value, want string }{
		{"no T", "2026-12-01 22:30", `--start-at "2026-12-01 22:30": want an RFC 3339 time with its zone`},
		{"no zone", "2026-12-01T22:30:00", `want an RFC 3339 time with its zone`},
		{"two hours ago", time.Now().Add(-2 * time.Hour).UTC().Format(time.RFC3339), "ago, more than 1h0m0s: a stale time"},
		{"in two days", time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339), "ahead, more than 24h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := invokeEnv(t, nil, "--url", srv.URL, "--workload", workload, "--start-at", tc.value)
			assert.Equal(t, ExitUsage, r.code, "a usage error")
			assert.Contains(t, r.stderr, tc.want, "the error says what is wrong")
		})
	}
	assert.Empty(t, srv.ChatRequests(), "nothing sent")

	// A time a little past starts at once and says so.
	past := time.Now().Add(-5 * time.Second).UTC().Format(time.RFC3339)
	r := invokeEnv(t, map[string]string{envStartAt: past}, "--url", srv.URL, "--workload", workload, "--num-prompts", "2",
		"--output", filepath.Join(t.TempDir(), "late.json"))
	assert.Equal(t, ExitOK, r.code, "a late start runs")
	assert.Contains(t, r.stderr, "benchserve: warning: start at "+past, "and warns")
	assert.Contains(t, r.stderr, "the load starts now, late by", "saying how late")
}
