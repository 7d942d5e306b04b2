package compare_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/results"
)

func gate(t *testing.T, s string) compare.Gate {
	t.Helper()
	g, err := compare.ParseGate(s)
	require.NoError(t, err, s)
	return g
}

// TTFT 20 ms against 24 ms, 20 requests a side: worse, the interval
// holds +4 ms, and the +10% gate fails.
func TestWorseTTFTIsCalledWorse(t *testing.T) {
	base := synth("base", []string{"greet"}, 20, 20, 1, 1)
	cand := synth("cand", []string{"greet"}, 20, 24, 1, 2)
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand},
		compare.Options{Gates: []compare.Gate{gate(t, "ttft_p50_ms +10%")}})
	require.NoError(t, err)
	ch, ok := find(cmp, "greet", "ttft_p50_ms")
	require.True(t, ok, "a ttft_p50_ms row for the case")
	assert.Equal(t, compare.VerdictWorse, ch.Verdict, "%+v", ch)
	require.NotNil(t, ch.Low)
	assert.Less(t, *ch.Low, 4.0, "interval holds +4 ms")
	assert.Greater(t, *ch.High, 4.0, "interval holds +4 ms")
	assert.InDelta(t, 0.2, *ch.Relative, 0.05, "about +20%%")
	assert.True(t, cmp.Regressed, "the gate fails")
	require.Len(t, cmp.GateFailures, 1, "exactly the gated row fails: %v", cmp.GateFailures)
	assert.Contains(t, cmp.GateFailures[0], `ttft_p50_ms +10%: case "greet"`)

	// A 30% tolerance lets +20% through; e2el (+4 ms of 120) stays within it too.
	cmp, err = compare.Workloads([]compare.Run{base}, []compare.Run{cand},
		compare.Options{Gates: []compare.Gate{gate(t, "ttft_p50_ms +30%")}})
	require.NoError(t, err)
	assert.False(t, cmp.Regressed, "within the tolerance: %v", cmp.GateFailures)
	// An absolute tolerance in ms.
	cmp, err = compare.Workloads([]compare.Run{base}, []compare.Run{cand},
		compare.Options{Gates: []compare.Gate{gate(t, "ttft_p50_ms +2")}})
	require.NoError(t, err)
	assert.True(t, cmp.Regressed, "+4 ms is beyond +2 ms")
}

func TestSameServerIsNotSignificant(t *testing.T) {
	base := synth("base", []string{"greet"}, 20, 20, 1, 1)
	cand := synth("cand", []string{"greet"}, 20, 20, 1, 2)
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand},
		compare.Options{Gates: []compare.Gate{gate(t, "ttft_p50_ms +10%")}})
	require.NoError(t, err)
	ch, _ := find(cmp, "greet", "ttft_p50_ms")
	assert.Equal(t, compare.VerdictSame, ch.Verdict, "%+v", ch)
	assert.False(t, cmp.Regressed)
	p99, _ := find(cmp, "greet", "ttft_p99_ms")
	assert.Equal(t, compare.VerdictTooFew, p99.Verdict, "20 requests cannot bound a p99 difference")
}

// 40 pairs of runs of one unchanged server (synthetic: the same
// distribution, fresh noise): at most 3 are called a regression at
// alpha 0.05. BENCHSERVE_LONG's TestUnchangedServerFalseAlarms
// (package cli) does the same against a served fixture.
func TestUnchangedFalseAlarmRate(t *testing.T) {
	alarms := 0
	for i := range uint64(40) {
		base := synth("base", caseNames(5), 8, 20, 2, 100+2*i)
		cand := synth("cand", caseNames(5), 8, 20, 2, 101+2*i)
		cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand}, compare.Options{})
		require.NoError(t, err)
		if cmp.Regressed {
			alarms++
		}
	}
	t.Logf("%d of 40 pairs of an unchanged server called a regression", alarms)
	assert.LessOrEqual(t, alarms, 3, "false alarms of 40 at alpha 0.05")
}

// Across cases, the same cases on both sides are paired.
func TestRunWideRowsArePaired(t *testing.T) {
	base := synth("base", caseNames(20), 1, 20, 1, 1)
	cand := synth("cand", caseNames(20), 1, 24, 1, 2)
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand}, compare.Options{})
	require.NoError(t, err)
	ch, ok := find(cmp, "", "ttft_p50_ms")
	require.True(t, ok)
	assert.True(t, ch.Paired)
	assert.Equal(t, compare.VerdictWorse, ch.Verdict)
	assert.Less(t, *ch.Low, 4.0)
	assert.Greater(t, *ch.High, 4.0)
	one, _ := find(cmp, "c00", "ttft_p50_ms")
	assert.Equal(t, compare.VerdictTooFew, one.Verdict, "one request a side per case")
}

func TestPassToFailIsARegressionWhateverTheNumbers(t *testing.T) {
	base := synth("base", []string{"greet"}, 5, 20, 1, 1)
	cand := synth("cand", []string{"greet"}, 5, 20, 1, 2)
	cand.Payload.Results[3].OK = false
	cand.Payload.Results[3].Quality.OK = false
	cand.Payload.Results[3].Quality.Issues = []string{"checks.min_chars: content has 2 chars, want >= 40"}
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand}, compare.Options{})
	require.NoError(t, err)
	require.Len(t, cmp.Regressions, 1)
	assert.Equal(t, `case "greet": passed in the base (5 of 5), fails in the candidate (1 of 5 failed): checks.min_chars: content has 2 chars, want >= 40`, cmp.Regressions[0])
	assert.True(t, cmp.Regressed)
}

func TestGreedyAnswerChangesAreListed(t *testing.T) {
	base := synth("base", []string{"greet"}, 2, 20, 1, 1)
	cand := synth("cand", []string{"greet"}, 2, 20, 1, 2)
	for _, p := range []*results.Payload{base.Payload, cand.Payload} {
		for i := range p.Results {
			p.Results[i].Request.ExtraBody = map[string]any{"temperature": 0.0, "seed": 1.0}
		}
	}
	cand.Payload.Results[1].Quality.ContentPreview = "hi there"
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand}, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{`case "greet": the greedy answer changed: "hello" → "hi there"`}, cmp.AnswerChanges)
	assert.False(t, cmp.Regressed, "listed, not a regression")
}

func TestIncomparableInputsAreRefused(t *testing.T) {
	base := synth("base.json", []string{"greet"}, 3, 20, 1, 1)
	cand := synth("cand.json", []string{"greet"}, 3, 20, 1, 2)
	cand.Payload.Workload.Digest = "sha256:def"
	for i := range cand.Payload.Results {
		cand.Payload.Results[i].ModelID = "other"
	}
	_, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand}, compare.Options{})
	require.ErrorIs(t, err, compare.ErrIncomparable)
	assert.Contains(t, err.Error(), `model: base.json has "m", cand.json has "other"`)
	assert.Contains(t, err.Error(), `workload: base.json has "w sha256:abc", cand.json has "w sha256:def"`)
	assert.Contains(t, err.Error(), "--allow-different model,workload")
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand}, compare.Options{Allow: []string{"model", "workload"}})
	require.NoError(t, err)
	assert.Len(t, cmp.Allowed, 2)
}

func TestBadInputNamesFileAndField(t *testing.T) {
	good := synth("base.json", []string{"greet"}, 3, 20, 1, 1)
	empty := synth("empty.json", nil, 0, 0, 0, 1)
	failed := synth("failed.json", []string{"greet"}, 2, 20, 1, 2)
	for i := range failed.Payload.Results {
		failed.Payload.Results[i].Error = "connection refused"
	}
	old := synth("old.json", []string{"greet"}, 3, 20, 1, 3)
	old.Payload.Workload.Digest = ""
	for _, tc := range []struct {
		run  compare.Run
		want string
	}{
		{empty, "empty.json: results: the run holds no finished request"},
		{old, "old.json: workload.digest: missing"},
	} {
		_, err := compare.Workloads([]compare.Run{good}, []compare.Run{tc.run}, compare.Options{})
		require.Error(t, err, tc.want)
		assert.True(t, errors.Is(err, compare.ErrBadInput), "%v", err)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// A candidate run whose every request failed is a regression with a
// line saying so; a base run like it is bad input naming the base.
func TestAllFailedCandidateRegresses(t *testing.T) {
	good := synth("base.json", []string{"greet"}, 3, 20, 1, 1)
	failed := synth("failed.json", []string{"greet"}, 2, 20, 1, 2)
	for i := range failed.Payload.Results {
		failed.Payload.Results[i].Error = "connection refused"
		failed.Payload.Results[i].Quality.OK = false
	}
	cmp, err := compare.Workloads([]compare.Run{good}, []compare.Run{failed}, compare.Options{})
	require.NoError(t, err)
	assert.True(t, cmp.Regressed)
	require.NotEmpty(t, cmp.Regressions)
	assert.Equal(t, "candidate failed.json: every request failed (2 of 2): the candidate answered nothing (first error: connection refused)", cmp.Regressions[0])
	_, err = compare.Workloads([]compare.Run{failed}, []compare.Run{good}, compare.Options{})
	require.ErrorIs(t, err, compare.ErrBadInput)
	assert.Contains(t, err.Error(), "base failed.json: results: every request failed (2 of 2): nothing was measured")
}

func TestParseGate(t *testing.T) {
	g := gate(t, "ttft_p95_ms +10%")
	assert.Equal(t, compare.Gate{Metric: "ttft_p95_ms", Tolerance: 0.10, Relative: true, Text: "ttft_p95_ms +10%"}, g)
	g = gate(t, "gen_tps -5")
	assert.Equal(t, 5.0, g.Tolerance)
	assert.False(t, g.Relative)
	for _, bad := range []string{"ttft_p95_ms", "latency +10%", "ttft_p95_ms +x%"} {
		_, err := compare.ParseGate(bad)
		assert.Error(t, err, bad)
	}
}

// compare --format benchstat is read by benchstat's own parser.
func TestBenchstatFormatParses(t *testing.T) {
	base := synth("base", []string{"greet", "two words"}, 3, 20, 1, 1)
	cand := synth("cand", []string{"greet", "two words"}, 3, 24, 1, 2)
	out := compare.Benchstat([]compare.Run{base}, []compare.Run{cand})
	r := benchfmt.NewReader(strings.NewReader(string(out)), "compare.txt")
	sides := map[string]int{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			side := rec.GetConfig("side")
			sides[side]++
			// benchfmt tidies ns/op to sec/op, as benchstat shows it.
			v, ok := rec.Value("ttft-sec/op")
			require.True(t, ok, "ttft unit in %v", rec.Values)
			assert.InDelta(t, 0.022, v, 0.006, "ttft in seconds")
			assert.Contains(t, []string{"BenchmarkW/case=greet", "BenchmarkW/case=two_words"}, "Benchmark"+string(rec.Name.Full()))
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		}
	}
	require.NoError(t, r.Err())
	assert.Equal(t, map[string]int{"base": 6, "candidate": 6}, sides)
}

// Conformance results compare by their contracts' verdicts: every
// change listed, pass → fail a regression, no metric rows.
func TestConformanceComparesVerdicts(t *testing.T) {
	base := synth("base", []string{"a", "b", "c"}, 1, 20, 1, 1)
	cand := synth("cand", []string{"a", "b", "c"}, 1, 20, 1, 2)
	verdicts := func(run compare.Run, vs ...string) {
		for i := range run.Payload.Results {
			run.Payload.Results[i].Contract = &results.Contract{Name: "contract." + run.Payload.Results[i].CaseID,
				Level: "MUST", Verdict: vs[i], Failing: vs[i] == "fail"}
		}
	}
	verdicts(base, "pass", "fail", "skip")
	verdicts(cand, "fail", "pass", "skip")
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand}, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, "conformance", cmp.Kind)
	assert.Empty(t, cmp.Changes, "no metric rows for contracts")
	assert.Equal(t, []string{`contract "contract.a": pass → fail`, `contract "contract.b": fail → pass`}, cmp.ContractChanges)
	assert.Equal(t, []string{`contract "contract.a": pass in the base, fail in the candidate`}, cmp.Regressions)
	assert.True(t, cmp.Regressed)
}

// A load run's throughput and goodput are one sample per run: with
// eight runs a side a drop from 10 to 8 requests/s is worse (five could
// not reach significance over the family of 16 rows), with one run
// a side there are too few samples.
func TestRunRatesCompareAcrossRuns(t *testing.T) {
	side := func(label string, rate float64, n int, seed uint64) []compare.Run {
		var runs []compare.Run
		for i := range n {
			r := synth(label, []string{"greet"}, 3, 20, 1, seed+uint64(i))
			v, g := rate+0.1*float64(i), rate*0.9+0.1*float64(i)
			r.Payload.Schedule = &results.Schedule{Mode: "open", RequestThroughput: &v, Goodput: &g}
			runs = append(runs, r)
		}
		return runs
	}
	cmp, err := compare.Workloads(side("base", 10, 8, 10), side("cand", 8, 8, 20), compare.Options{})
	require.NoError(t, err)
	ch, ok := find(cmp, "", "throughput_rps")
	require.True(t, ok, "a throughput row")
	assert.True(t, ch.HigherIsBetter)
	assert.Equal(t, 8, ch.BaseN, "one sample per run")
	assert.InDelta(t, -2, *ch.Delta, 1e-9)
	assert.Equal(t, compare.VerdictWorse, ch.Verdict, "%+v", ch)
	g, ok := find(cmp, "", "goodput_rps")
	require.True(t, ok, "a goodput row")
	assert.Equal(t, compare.VerdictWorse, g.Verdict)

	cmp, err = compare.Workloads(side("base", 10, 1, 10), side("cand", 8, 1, 20), compare.Options{})
	require.NoError(t, err)
	ch, _ = find(cmp, "", "throughput_rps")
	assert.Equal(t, compare.VerdictTooFew, ch.Verdict, "one run a side")
}

// A gate no row can decide is undecided, not passed: with 20 requests a
// side no p99 change can be called, and a load metric is absent from
// payloads without a load run (a newcomer's review: a 10x TTFT rise passed
// "ttft_p95_ms +10%" as "no regression" with 15 requests a side).
func TestAGateNoRowDecidesIsUndecided(t *testing.T) {
	base := synth("base", []string{"greet"}, 20, 20, 1, 1)
	cand := synth("cand", []string{"greet"}, 20, 200, 1, 2)
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand},
		compare.Options{Gates: []compare.Gate{gate(t, "ttft_p99_ms +10%"), gate(t, "throughput_rps -5%"), gate(t, "ttft_p50_ms +1000%")}})
	require.NoError(t, err)
	assert.False(t, cmp.Regressed, "no gate failed: %v", cmp.GateFailures)
	require.Len(t, cmp.GateUndecided, 2, "%v", cmp.GateUndecided)
	assert.Contains(t, cmp.GateUndecided[0], "ttft_p99_ms +10%: no row decided: ")
	assert.Contains(t, cmp.GateUndecided[0], "had too few samples")
	assert.Equal(t, "throughput_rps -5%: these inputs have no throughput_rps row to gate", cmp.GateUndecided[1])
	assert.Contains(t, string(compare.Table(cmp)), "verdict: UNDECIDED (a --fail-on gate could not be decided)")
	assert.Contains(t, string(compare.Table(cmp)), "undecided gates:")
}

// throughput_rps is the completed throughput, not the achieved sending
// rate: a closed loop against a server 6× slower sends its burst just as
// fast (its achieved rate, before it was null, was higher), and only the
// completions over the wall span say it served 6× less.
func TestThroughputIsCompletionsNotTheSendingRate(t *testing.T) {
	side := func(label string, sending, served float64, seed uint64) []compare.Run {
		var runs []compare.Run
		for i := range 8 {
			r := synth(label, []string{"greet"}, 3, 20, 1, seed+uint64(i))
			send, tp := sending+0.1*float64(i), served+0.1*float64(i)
			r.Payload.Schedule = &results.Schedule{Mode: "closed", AchievedRate: &send, RequestThroughput: &tp}
			runs = append(runs, r)
		}
		return runs
	}
	cmp, err := compare.Workloads(side("base", 5261, 220, 10), side("cand", 7328, 36, 20), compare.Options{})
	require.NoError(t, err)
	ch, ok := find(cmp, "", "throughput_rps")
	require.True(t, ok, "a throughput row")
	assert.InDelta(t, 220.35, *ch.Base, 1e-9, "the base's completed throughput, median of its runs")
	assert.InDelta(t, 36-220, *ch.Delta, 1e-9, "the candidate served 184 req/s less")
	assert.Equal(t, compare.VerdictWorse, ch.Verdict, "%+v", ch)
}
