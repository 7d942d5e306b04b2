package cli

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// writeSweepFile writes a prompt sweep of set "short" at concurrencies 1 and
// 4, 8 repetitions a point, whose mean TTFT at concurrency 4 is ttft4 ms
// (20 ms at 1) plus seeded noise of 0.5 ms.
func writeSweepFile(t *testing.T, dir, name string, ttft4 float64, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 5))
	var rows []results.SweepResult
	for _, c := range []int{1, 4} {
		for rep := range 8 {
			row := results.NewSweepResult()
			row.RunID, row.ModelID, row.PromptSet, row.Concurrency, row.Repetition = "0000000"+name[:1], "m", "short", c, rep
			row.TTFTms = 20 + 0.5*r.NormFloat64()
			if c == 4 {
				row.TTFTms = ttft4 + 0.5*r.NormFloat64()
			}
			row.TPOTms, row.E2ELms, row.GenTPS = 5+0.1*r.NormFloat64(), row.TTFTms+100, 200+r.NormFloat64()
			row.PromptTPS, row.ThroughputTPS, row.RequestsPerS = 1000+r.NormFloat64(), 200*float64(c)+r.NormFloat64(), 8+0.01*r.NormFloat64()
			rows = append(rows, row)
		}
	}
	data, err := json.Marshal(rows)
	require.NoError(t, err)
	out := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(out, data, 0o644))
	return out
}

// writeCapacity writes a rate search's capacity.json whose probes passed
// at pass and failed at fail (req/s): its interval is [max pass, min
// fail].
func writeCapacity(t *testing.T, dir, name string, pass, fail []float64) string {
	t.Helper()
	slo, err := results.ParseThreshold("ttft_p95_ms <= 500")
	require.NoError(t, err)
	c := results.Capacity{CapacitySearch: results.CapacitySearch{By: "rate", SLOs: []results.Threshold{slo}}, Status: "found"}
	for _, l := range pass {
		c.Probes = append(c.Probes, results.CapacityProbe{Number: len(c.Probes) + 1, By: "rate", Load: l, Verdict: "pass", Pass: true, PointPass: true})
	}
	for _, l := range fail {
		c.Probes = append(c.Probes, results.CapacityProbe{Number: len(c.Probes) + 1, By: "rate", Load: l, Verdict: "fail"})
	}
	c.Estimate()
	data, err := resultio.FormatCapacity(c)
	require.NoError(t, err)
	out := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(out, data, 0o644))
	return out
}

func TestCompareSweeps(t *testing.T) {
	dir := t.TempDir()
	base := writeSweepFile(t, dir, "base.json", 30, 1)
	again := writeSweepFile(t, dir, "again.json", 30, 2)
	slow := writeSweepFile(t, dir, "slow.json", 36, 3)

	res := invoke(t, "compare", "--format", "json", "--fail-on", "ttft_mean_ms +10%", base, slow)
	require.Equal(t, ExitFailed, res.code, "%s%s", res.stdout, res.stderr)
	var cmp results.Comparison
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &cmp))
	assert.Equal(t, "sweep", cmp.Kind)
	assert.Equal(t, "worse", change(t, cmp, "short c=4", "ttft_mean_ms").Verdict)
	assert.Equal(t, "~", change(t, cmp, "short c=1", "ttft_mean_ms").Verdict)
	require.Len(t, cmp.GateFailures, 1)

	res = invoke(t, "compare", base, again)
	assert.Equal(t, ExitOK, res.code, "the same server twice: %s", res.stdout)
	assert.Regexp(t, `short c=4\s+ttft_mean_ms\s+.*\s~\n`, res.stdout)

	res = invoke(t, "compare", "--format", "benchstat", base, slow)
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, "--format benchstat writes workload payloads' requests")
}

func TestCompareCapacities(t *testing.T) {
	dir := t.TempDir()
	base := writeCapacity(t, dir, "base.json", []float64{5, 10}, []float64{11, 20})
	lower := writeCapacity(t, dir, "lower.json", []float64{5, 7}, []float64{8, 10})
	near := writeCapacity(t, dir, "near.json", []float64{5, 10.5}, []float64{11.5, 20})

	res := invoke(t, "compare", base, lower)
	assert.Equal(t, ExitFailed, res.code, "%s%s", res.stdout, res.stderr)
	assert.Regexp(t, `\(all\)\s+capacity_rps\s+10\.00\s+7\.00\s+-3\.00 \(-30\.0%\) \[-4\.00, -2\.00\]\s+ci\s+worse\n`, res.stdout)

	res = invoke(t, "compare", "--format", "json", base, near)
	assert.Equal(t, ExitOK, res.code, "overlapping intervals: %s", res.stdout)
	var cmp results.Comparison
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &cmp))
	ch := change(t, cmp, "", "capacity_rps")
	assert.Equal(t, "~", ch.Verdict)
	assert.True(t, ch.HigherIsBetter)
	assert.Contains(t, ch.Test, "capacity intervals at 95%")
}

func TestCompareDifferentKindsExit2(t *testing.T) {
	dir := t.TempDir()
	sweep := writeSweepFile(t, dir, "sweep.json", 30, 1)
	capacity := writeCapacity(t, dir, "capacity.json", []float64{5}, []float64{6})
	out := filepath.Join(dir, "out.txt")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{sweep, capacity}, "files of different kinds: " + sweep + " is a prompt sweep, " + capacity + " is a capacity result"},
		{[]string{sweep, sweep, "--", capacity}, capacity + " is a capacity result"},
		{[]string{sweep, capacity, "--", sweep}, "files of different kinds: " + sweep + " is a prompt sweep, " + capacity + " is a capacity result"},
	} {
		res := invoke(t, append([]string{"compare", "--output", out}, tc.args...)...)
		assert.Equal(t, ExitUsage, res.code, "%v", tc.args)
		assert.Contains(t, res.stderr, tc.want, "%v", tc.args)
		assert.NoFileExists(t, out)
	}
}

// Two runs kept in one SQLite history, picked by their run ids.
func TestCompareHistoryRunIDs(t *testing.T) {
	dir := t.TempDir()
	wl := compareWorkload(t, dir)
	template := runAt(t, wl, dir, "run.json", time.Millisecond)
	db := filepath.Join(dir, "history.db")
	for _, s := range []struct {
		id   string
		ttft float64
		seed uint64
	}{{"aaaa0001", 20, 1}, {"aaaa0002", 20, 2}, {"aaaa0003", 24, 3}} {
		p := readPayload(t, scripted(t, template, dir, s.id+".json", s.ttft, s.seed))
		p.RunID = s.id
		for i := range p.Results {
			p.Results[i].RunID = s.id
		}
		require.NoError(t, history.AppendPayload(&p, db))
	}

	res := invoke(t, "compare", "--format", "json", "--fail-on", "ttft_p50_ms +10%", db+":aaaa0001", db+":aaaa0003")
	require.Equal(t, ExitFailed, res.code, "%s%s", res.stdout, res.stderr)
	var cmp results.Comparison
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &cmp))
	assert.Equal(t, []string{db + ":aaaa0001"}, cmp.Base)
	ch := change(t, cmp, "greet", "ttft_p50_ms")
	assert.Equal(t, "worse", ch.Verdict)
	require.NotNil(t, ch.Low)
	assert.LessOrEqual(t, *ch.Low, 4.0)
	assert.GreaterOrEqual(t, *ch.High, 4.0)
	require.Len(t, cmp.Allowed, 1, "the missing digest is said")
	assert.Contains(t, cmp.Allowed[0], "keep no workload digest")

	res = invoke(t, "compare", db+":aaaa0001", "--", db+":aaaa0002")
	assert.Equal(t, ExitOK, res.code, "the same server twice: %s%s", res.stdout, res.stderr)

	// A history run against the JSON payload it came from: the digest
	// differs from the history's stand-in (and the history keeps no
	// cache policy), refused unless allowed.
	res = invoke(t, "compare", filepath.Join(dir, "aaaa0001.json"), db+":aaaa0002")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, "workload:")
	res = invoke(t, "compare", "--allow-different", "workload,settings", filepath.Join(dir, "aaaa0001.json"), db+":aaaa0002")
	assert.Equal(t, ExitOK, res.code, "%s%s", res.stdout, res.stderr)

	res = invoke(t, "compare", db+":aaaa0001", db+":nope")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, `history.db: run_id "nope": no such run (the file holds aaaa0001, aaaa0002, aaaa0003)`)
}

// A conformance result is its own kind: beside a workload payload it is
// refused, whatever --allow-different says, never pooled into the
// workload's latencies (where its contracts' probe timings, or their null
// TTFTs, would be compared as a server's).
func TestCompareConformanceBesideWorkloadExit2(t *testing.T) {
	dir := t.TempDir()
	run := runAt(t, compareWorkload(t, dir), dir, "run.json", 5*time.Millisecond)
	p := readPayload(t, run)
	for i := range p.Results {
		p.Results[i].Contract = &results.Contract{Name: p.Results[i].CaseID, Level: "MUST", Check: "stream_framing", Verdict: "pass"}
	}
	data, err := json.Marshal(p)
	require.NoError(t, err)
	conf := filepath.Join(dir, "conformance.json")
	require.NoError(t, os.WriteFile(conf, data, 0o644))
	out := filepath.Join(dir, "out.txt")
	for _, args := range [][]string{{conf, run}, {run, "--", conf}, {run, conf, "--", run}} {
		res := invoke(t, append([]string{"compare", "--allow-different", "workload", "--output", out}, args...)...)
		assert.Equal(t, ExitUsage, res.code, "%v", args)
		assert.Contains(t, res.stderr, "files of different kinds", "%v", args)
		assert.Contains(t, res.stderr, conf+" is a conformance result", "%v", args)
		assert.NoFileExists(t, out)
	}
}
