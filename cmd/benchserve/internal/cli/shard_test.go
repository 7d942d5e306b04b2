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
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// Four benchserve processes, each one shard of an open-loop run against
// one fixture, then benchserve merge: every scheduled request reaches the
// server and the merged payload once (or, when a busy machine made a
// shard fall behind, every request it sent, the rest counted unsent), the
// shards' schedules together hold the target rate within 10%, and the
// merged summary is one recomputation over every record. It needs the run flags (--request-rate, --duration,
// --seed, --shard, --run-id) and skips until the CLI has them.
func TestShardedProcessesMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four benchserve processes for 3 s")
	}
	if probe := invokeEnv(t, nil, "--shard", "0/1", "--help"); strings.Contains(probe.stderr, "flag provided but not defined") {
		t.Skip("the CLI has no --shard flag yet")
	}
	const shards, rate, dur, seed, runID = 4, 40.0, 3 * time.Second, 1, "feedc0de"
	// Every request is counted: around each case the runner also reads
	// /metrics and /v1/status, more than the default log keeps.
	srv := fixtures.Start(t, fixtures.Options{MaxLoggedRequests: -1})
	dir := t.TempDir()
	workload := smokeWithoutSLO(t, dir)

	// What the schedule holds: shard I's arrivals before the duration.
	want := 0
	for i := range shards {
		cfg, err := loadgen.Shard{Index: i, Count: shards}.Open(loadgen.Open{Rate: rate, Seed: seed, Duration: dur})
		require.NoError(t, err)
		for _, at := range cfg.Schedule(int(cfg.Rate*dur.Seconds()*2) + 50) {
			if at >= dur {
				break
			}
			want++
		}
	}
	assert.InEpsilon(t, rate, float64(want)/dur.Seconds(), 0.1, "the seed's schedule is near the target rate")

	outs := make([]string, shards)
	cmds := make([]*exec.Cmd, shards)
	for i := range shards {
		outs[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		cmds[i] = exec.CommandContext(t.Context(), os.Args[0], "--url", srv.URL, "--workload", workload,
			"--request-rate", fmt.Sprint(rate), "--duration", dur.String(), "--seed", fmt.Sprint(seed),
			"--shard", fmt.Sprintf("%d/%d", i, shards), "--run-id", runID, "--output", outs[i])
		cmds[i].Env = append(os.Environ(), cliChildEnv+"=1")
		var stderr strings.Builder
		cmds[i].Stderr = &stderr
		require.NoError(t, cmds[i].Start(), "start shard %d", i)
		t.Cleanup(func() { t.Logf("shard %d stderr:\n%s", i, stderr.String()) })
	}
	for i, cmd := range cmds {
		assert.NoError(t, cmd.Wait(), "shard %d exits 0", i)
	}

	merged := filepath.Join(dir, "merged.json")
	code, stdout, stderr := runCLI("merge", merged, outs[0], outs[1], outs[2], outs[3])
	require.Equal(t, ExitOK, code, "merge: %s%s", stdout, stderr)
	p := readPayload(t, merged)
	assert.Equal(t, runID, p.RunID, "the shared run id")
	// A shard that fell behind its schedule (a busy machine) stops sending
	// shortly after the duration and counts the rest unsent.
	unsent := 0
	for _, out := range outs {
		if sp := readPayload(t, out); sp.Schedule != nil {
			unsent += sp.Schedule.Unsent
		}
	}
	if unsent == 0 {
		assert.Len(t, p.Results, want, "every scheduled request once")
	} else {
		assert.Less(t, len(p.Results), want, "a shard that fell behind sent less than its schedule")
		t.Logf("the shards fell behind: %d of %d scheduled requests sent, %d counted unsent", len(p.Results), want, unsent)
	}
	assert.Len(t, srv.ChatRequests(), len(p.Results), "every request sent reached the server once")
	seen := map[string]bool{}
	for _, r := range p.Results {
		require.NotNil(t, r.Shard, "record %s/%d carries its shard", r.CaseID, r.Repetition)
		key := fmt.Sprintf("%d/%s/%d", *r.Shard, r.CaseID, r.Repetition)
		assert.False(t, seen[key], "record %s once", key)
		seen[key] = true
		assert.Equal(t, runID, r.RunID, "record run id")
	}
	require.NotNil(t, p.Schedule, "the merged schedule")
	require.NotNil(t, p.Schedule.AchievedRate, "the merged rate is measured: %s", p.Schedule.AchievedRateReason)
	if unsent == 0 {
		assert.InEpsilon(t, rate, *p.Schedule.AchievedRate, 0.25, "merged achieved rate, from the records, near the target")
	}
	assert.NotNil(t, p.Schedule.StartSkewS, "the shards' start skew is reported")
	assert.Equal(t, len(p.Results), p.Schedule.Sent, "sent: every record")
	assert.Equal(t, results.Summarize(p.Results), p.Summary, "summary = one recomputation over every record")
}
