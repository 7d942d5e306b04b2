package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// writeShard writes shard i of run runID: 4 records, TTFT 100·(i+1) +
// 10·j ms, as a JSON payload, and returns its path.
func writeShard(t *testing.T, dir, runID string, i int) string {
	t.Helper()
	var recs []results.Record
	for j := range 4 {
		shard := i
		recs = append(recs, results.Record{RunID: runID, Workload: "smoke", CaseID: fmt.Sprintf("c%d", j%2), Repetition: j / 2,
			Shard: &shard, OK: true, Quality: results.Quality{OK: true, Issues: []string{}},
			StartedAt: "2025-01-02T03:04:05+00:00",
			Metrics:   results.Metrics{TTFTms: float64(100*(i+1) + 10*j), E2ELms: 1000, CompletionTokens: 10}})
	}
	p := resultio.BuildPayload(resultio.PayloadInput{RunID: runID, Timestamp: "2025-01-02T03:04:05+00:00",
		Workload: results.WorkloadInfo{Name: "smoke", Path: "/w/smoke.json"}, Records: recs})
	p.SLO = []results.SLOResult{{Threshold: results.Threshold{Expr: "ttft_p95_ms <= 1000"}, Pass: true}}
	path := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
	require.NoError(t, resultio.WriteFile(p, path), "write shard")
	return path
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb strings.Builder
	code = run(context.Background(), args, &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	s0, s1, s2 := writeShard(t, dir, "abcd1234", 0), writeShard(t, dir, "abcd1234", 1), writeShard(t, dir, "abcd1234", 2)
	out := filepath.Join(dir, "merged.json")
	code, stdout, stderr := runCLI("merge", out, s0, s1, s2)
	require.Equal(t, ExitOK, code, "merge: %s", stderr)
	assert.Contains(t, stdout, `run abcd1234, workload "smoke": 12 records from 3 payloads (3 shards) → `+out, "summary line")
	assert.Contains(t, stdout, "ok   ttft_p95_ms = ", "the inputs' threshold evaluated on the whole run")

	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var m results.Payload
	require.NoError(t, json.Unmarshal(data, &m))
	require.Len(t, m.Results, 12, "every record once")
	assert.Equal(t, 12, m.Summary.CaseCount, "summary over all shards")
	assert.Equal(t, 100.0, m.Summary.TTFTms.Min, "min over all shards")
	assert.Equal(t, 330.0, m.Summary.TTFTms.Max, "max over all shards")
	require.Len(t, m.SLO, 1, "threshold recorded")
	assert.True(t, m.SLO[0].Pass, "passes on the whole run")

	// A tighter threshold on the merged run fails it: exit 1.
	code, stdout, _ = runCLI("merge", "--slo", "ttft_max_ms <= 300", out, s0, s1, s2)
	assert.Equal(t, ExitFailed, code, "failing threshold")
	assert.Contains(t, stdout, "FAIL ttft_max_ms = 330, want <= 300", "names the failing threshold")
}

func TestMergeCommandRefuses(t *testing.T) {
	dir := t.TempDir()
	s0 := writeShard(t, dir, "abcd1234", 0)
	odir := filepath.Join(dir, "other")
	other := writeShard(t, odir, "ffff0000", 1)
	out := filepath.Join(dir, "merged.json")

	code, _, stderr := runCLI("merge", out, s0, other)
	assert.Equal(t, ExitUsage, code, "different runs")
	assert.Contains(t, stderr, fmt.Sprintf(`%s is run "ffff0000" but %s is run "abcd1234"`, other, s0), "names the files and run ids")
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "nothing written")

	dup := filepath.Join(dir, "dup.json")
	data, err := os.ReadFile(s0)
	require.NoError(t, err)
	var p results.Payload
	require.NoError(t, json.Unmarshal(data, &p))
	p.Results[0].Metrics.TTFTms++
	require.NoError(t, resultio.WriteFile(&p, dup))
	code, _, stderr = runCLI("merge", out, s0, dup)
	assert.Equal(t, ExitUsage, code, "conflicting records")
	assert.Contains(t, stderr, "appears with different results in "+s0+" and "+dup, "the conflict names both files")

	db := filepath.Join(dir, "shard.db")
	code, _, stderr = runCLI("merge", out, db)
	assert.Equal(t, ExitUsage, code, "sqlite input")
	assert.Contains(t, stderr, db+": SQLite input is not supported", "says why")

	sweep := filepath.Join(dir, "sweep.json")
	require.NoError(t, os.WriteFile(sweep, []byte(`[{"run_id":"x"}]`), 0o644))
	code, _, stderr = runCLI("merge", out, sweep)
	assert.Equal(t, ExitUsage, code, "sweep input")
	assert.Contains(t, stderr, sweep+": a prompt-sweep result", "says why")

	code, _, stderr = runCLI("merge", out)
	assert.Equal(t, ExitUsage, code, "no input")
	assert.Contains(t, stderr, "want OUT and at least one IN", "usage")
	code, _, stderr = runCLI("merge", s0, s0)
	assert.Equal(t, ExitUsage, code, "output is an input")
	assert.Contains(t, stderr, "is both the output and an input", "guard")
}

// A record without metrics, or with a null latency, is refused by name
// (decoding alone would count it as 0 ms), and so is a negative latency.
func TestMergeCommandRefusesDamagedRecords(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"null latency", `"e2e_latency_ms": 1000.0`, `"e2e_latency_ms": null`, "record 0 (case \"c0\" repetition 0): metrics.e2e_latency_ms is null, not a number"},
		{"no metrics", `"metrics": {`, `"metrics_gone": {`, "record 0 (case \"c0\" repetition 0): no metrics"},
		{"negative latency", `"ttft_ms": 200.0`, `"ttft_ms": -3`, "record 0 (case \"c0\" repetition 0 of shard 1): metrics.ttft_ms is -3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s0, s1 := writeShard(t, dir, "abcd1234", 0), writeShard(t, dir, "abcd1234", 1)
			data, err := os.ReadFile(s1)
			require.NoError(t, err)
			require.True(t, strings.Contains(string(data), tc.from), "the fixture payload has %s", tc.from)
			require.NoError(t, os.WriteFile(s1, []byte(strings.Replace(string(data), tc.from, tc.to, 1)), 0o644))
			out := filepath.Join(dir, "merged.json")
			code, _, stderr := runCLI("merge", out, s0, s1)
			assert.Equal(t, ExitUsage, code, "damaged input")
			assert.Contains(t, stderr, s1+": "+tc.want, "names the file, the record and the field")
			_, err = os.Stat(out)
			assert.True(t, os.IsNotExist(err), "nothing written")
		})
	}
}

// merge's OUT follows the CLI's one output rule: a missing directory is a
// usage error before anything is written (not made), and an output that
// is an input under another spelling (./x, a symlink) is refused.
func TestMergeCommandChecksTheOutputFirst(t *testing.T) {
	dir := t.TempDir()
	s0, s1 := writeShard(t, dir, "abcd1234", 0), writeShard(t, dir, "abcd1234", 1)

	missing := filepath.Join(dir, "no", "such", "merged.json")
	code, stdout, stderr := runCLI("merge", missing, s0, s1)
	assert.Equal(t, ExitUsage, code, "missing output directory: %s", stdout)
	assert.Contains(t, stderr, "directory "+filepath.Join(dir, "no", "such")+" does not exist", "names the directory")
	_, err := os.Stat(filepath.Join(dir, "no"))
	assert.True(t, os.IsNotExist(err), "no directory made")

	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(s0, link))
	before, err := os.ReadFile(s0)
	require.NoError(t, err)
	for _, out := range []string{link, filepath.Join(dir, ".", "shard-0.json")} {
		code, _, stderr = runCLI("merge", out, s0, s1)
		assert.Equal(t, ExitUsage, code, "%s names the input %s", out, s0)
		assert.Contains(t, stderr, "is both the output and an input", "guard for %s", out)
	}
	after, err := os.ReadFile(s0)
	require.NoError(t, err)
	assert.True(t, string(before) == string(after), "the input is untouched (%d bytes before, %d after)", len(before), len(after))
}

// A conformance result is refused as what it is, not as damaged: its
// records are contracts, checked rather than timed (a newcomer's
// review: "metrics.ttft_ms is null … the record is damaged").
func TestMergeRefusesAConformanceResult(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "conf.json")
	require.NoError(t, os.WriteFile(conf, []byte(`{"run_id": "abcd1234", "workload": {"name": "conformance"}, "results": [
		{"run_id": "abcd1234", "case_id": "stream.framing", "repetition": 0, "metrics": {"ttft_ms": null, "e2e_latency_ms": null},
		 "contract": {"name": "stream.framing", "level": "MUST", "verdict": "pass"}}]}`), 0o644))
	s0 := writeShard(t, dir, "abcd1234", 0)
	code, _, stderr := runCLI("merge", filepath.Join(dir, "m.json"), s0, conf)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, conf+": a conformance result (every record a protocol contract, checked, not timed)")
	assert.NotContains(t, stderr, "damaged")
}
