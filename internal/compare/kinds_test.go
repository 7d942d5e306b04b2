package compare_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/results"
)

// sweepRun is a prompt sweep of set "short" at concurrencies 1 and 4,
// reps rows a point, whose TTFT at concurrency 4 is ttft4 ms (at 1: 20
// ms) plus seeded noise of 0.5 ms.
func sweepRun(label string, reps int, ttft4 float64, seed uint64) compare.SweepRun {
	r := rand.New(rand.NewPCG(seed, 3))
	var rows []results.SweepResult
	for _, c := range []int{1, 4} {
		for rep := range reps {
			row := results.NewSweepResult()
			row.RunID, row.ModelID, row.PromptSet, row.Concurrency, row.Repetition = "s"+label, "m", "short", c, rep
			row.TTFTms = 20 + 0.5*r.NormFloat64()
			if c == 4 {
				row.TTFTms = ttft4 + 0.5*r.NormFloat64()
			}
			row.TPOTms, row.E2ELms = 5+0.1*r.NormFloat64(), row.TTFTms+100
			row.GenTPS, row.PromptTPS = 200+r.NormFloat64(), 1000+r.NormFloat64()
			row.ThroughputTPS, row.RequestsPerS = 200*float64(c)+r.NormFloat64(), float64(c)/0.12+0.01*r.NormFloat64()
			rows = append(rows, row)
		}
	}
	return compare.SweepRun{Label: label, Rows: rows}
}

func TestSweepComparedPerPoint(t *testing.T) {
	base := sweepRun("base", 8, 30, 1)
	cand := sweepRun("cand", 8, 36, 2)
	cmp, err := compare.Sweeps([]compare.SweepRun{base}, []compare.SweepRun{cand}, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, "sweep", cmp.Kind)
	c4, ok := find(cmp, "short c=4", "ttft_mean_ms")
	require.True(t, ok, "a row per point: %+v", cmp.Changes)
	assert.Equal(t, compare.VerdictWorse, c4.Verdict, "%+v", c4)
	require.NotNil(t, c4.Low)
	assert.Less(t, *c4.Low, 6.0)
	assert.Greater(t, *c4.High, 6.0, "the interval holds the true +6 ms")
	c1, _ := find(cmp, "short c=1", "ttft_mean_ms")
	assert.Equal(t, compare.VerdictSame, c1.Verdict, "concurrency 1 unchanged: %+v", c1)
	assert.True(t, cmp.Regressed)
	assert.Len(t, cmp.Changes, 14, "7 metrics at 2 points")

	// The same sweep twice: nothing called different.
	cmp, err = compare.Sweeps([]compare.SweepRun{base}, []compare.SweepRun{sweepRun("again", 8, 30, 3)}, compare.Options{})
	require.NoError(t, err)
	assert.False(t, cmp.Regressed, "%+v", cmp.Changes)

	// One repetition a side cannot support a verdict.
	cmp, err = compare.Sweeps([]compare.SweepRun{sweepRun("b1", 1, 30, 1)}, []compare.SweepRun{sweepRun("c1", 1, 36, 2)}, compare.Options{})
	require.NoError(t, err)
	c4, _ = find(cmp, "short c=4", "ttft_mean_ms")
	assert.Equal(t, compare.VerdictTooFew, c4.Verdict)
	assert.False(t, cmp.Regressed)

	// A gate on a sweep metric.
	g, err := compare.ParseGate("ttft_mean_ms +10%")
	require.NoError(t, err)
	cmp, err = compare.Sweeps([]compare.SweepRun{base}, []compare.SweepRun{cand}, compare.Options{Gates: []compare.Gate{g}})
	require.NoError(t, err)
	require.Len(t, cmp.GateFailures, 1, "+20%% at c=4 only")
	assert.Contains(t, cmp.GateFailures[0], `case "short c=4"`)
}

func TestSweepValidationLostIsARegression(t *testing.T) {
	base := sweepRun("base", 1, 30, 1)
	cand := sweepRun("cand", 1, 30, 1)
	cand.Rows[1].Validated = false
	cmp, err := compare.Sweeps([]compare.SweepRun{base}, []compare.SweepRun{cand}, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{`point "short c=4": validated in the base (1 of 1 rows), fails validation in the candidate (1 of 1 rows)`}, cmp.Regressions)
	assert.True(t, cmp.Regressed)
}

func TestSweepIncomparable(t *testing.T) {
	base := sweepRun("base", 2, 30, 1)
	other := sweepRun("other", 2, 30, 1)
	for i := range other.Rows {
		other.Rows[i].ModelID = "m2"
	}
	_, err := compare.Sweeps([]compare.SweepRun{base}, []compare.SweepRun{other}, compare.Options{})
	require.ErrorIs(t, err, compare.ErrIncomparable)
	assert.Contains(t, err.Error(), `model: base has "m", other has "m2"`)
	_, err = compare.Sweeps([]compare.SweepRun{base}, []compare.SweepRun{other}, compare.Options{Allow: []string{"model"}})
	require.NoError(t, err)

	far := sweepRun("far", 2, 30, 1)
	for i := range far.Rows {
		far.Rows[i].Concurrency += 100
	}
	_, err = compare.Sweeps([]compare.SweepRun{base}, []compare.SweepRun{far}, compare.Options{})
	require.ErrorIs(t, err, compare.ErrIncomparable)
	assert.Contains(t, err.Error(), "no sweep point")
	_, err = compare.Sweeps([]compare.SweepRun{base}, []compare.SweepRun{{Label: "empty"}}, compare.Options{})
	require.ErrorIs(t, err, compare.ErrBadInput)
	assert.Contains(t, err.Error(), "empty: the sweep has no rows")
}

// capacity is a rate search's result: capacity c within [low, high]
// (NaN for an end not established).
func capacity(c, low, high float64) *results.Capacity {
	slo, _ := results.ParseThreshold("ttft_p95_ms <= 500")
	return &results.Capacity{CapacitySearch: results.CapacitySearch{By: "rate", SLOs: []results.Threshold{slo}},
		Capacity: c, Measured: !math.IsNaN(low), Interval: results.Interval{Low: low, High: high, Confidence: 0.95}}
}

func TestCapacityComparedByIntervals(t *testing.T) {
	one := func(c *results.Capacity, label string) []compare.CapacityRun {
		return []compare.CapacityRun{{Label: label, Capacity: c}}
	}
	for _, tc := range []struct {
		name       string
		base, cand *results.Capacity
		verdict    string
		low, high  float64
	}{
		{"lower, apart", capacity(10.5, 10, 11), capacity(7.5, 7, 8), compare.VerdictWorse, 7 - 11, 8 - 10},
		{"higher, apart", capacity(10.5, 10, 11), capacity(14, 13, 15), compare.VerdictBetter, 13 - 11, 15 - 10},
		{"overlapping", capacity(10.5, 10, 11), capacity(10.8, 10.5, 11.5), compare.VerdictSame, 10.5 - 11, 11.5 - 10},
		{"base at max, candidate below", capacity(1024, 1024, math.NaN()), capacity(500, 480, 520), compare.VerdictWorse, math.NaN(), 520 - 1024},
		{"both at max", capacity(1024, 1024, math.NaN()), capacity(1024, 1024, math.NaN()), compare.VerdictTooFew, math.NaN(), math.NaN()},
	} {
		cmp, err := compare.Capacities(one(tc.base, "base"), one(tc.cand, "cand"), compare.Options{})
		require.NoError(t, err, tc.name)
		require.Len(t, cmp.Changes, 1, tc.name)
		ch := cmp.Changes[0]
		assert.Equal(t, "capacity_rps", ch.Metric, tc.name)
		assert.True(t, ch.HigherIsBetter, tc.name)
		assert.Equal(t, tc.verdict, ch.Verdict, tc.name)
		assert.Equal(t, tc.verdict == compare.VerdictWorse, cmp.Regressed, tc.name)
		for _, end := range []struct {
			got  *float64
			want float64
		}{{ch.Low, tc.low}, {ch.High, tc.high}} {
			if math.IsNaN(end.want) {
				assert.Nil(t, end.got, tc.name)
			} else if assert.NotNil(t, end.got, tc.name) {
				assert.InDelta(t, end.want, *end.got, 1e-9, tc.name)
			}
		}
	}

	g, err := compare.ParseGate("capacity_rps +10%")
	require.NoError(t, err)
	// -28.6%: beyond the gate.
	cmp, err := compare.Capacities(one(capacity(10.5, 10, 11), "base"), one(capacity(7.5, 7, 8), "cand"), compare.Options{Gates: []compare.Gate{g}})
	require.NoError(t, err)
	assert.Len(t, cmp.GateFailures, 1)
	g, err = compare.ParseGate("capacity_rps +50%")
	require.NoError(t, err)
	cmp, err = compare.Capacities(one(capacity(10.5, 10, 11), "base"), one(capacity(7.5, 7, 8), "cand"), compare.Options{Gates: []compare.Gate{g}})
	require.NoError(t, err)
	assert.False(t, cmp.Regressed, "within 50%%")
}

func TestCapacityGroupsAndSettings(t *testing.T) {
	var base, cand []compare.CapacityRun
	for i := range 6 {
		base = append(base, compare.CapacityRun{Label: "b", Capacity: capacity(10+0.1*float64(i), 9.5, 11)})
		cand = append(cand, compare.CapacityRun{Label: "c", Capacity: capacity(8+0.1*float64(i), 7.5, 9)})
	}
	cmp, err := compare.Capacities(base, cand, compare.Options{})
	require.NoError(t, err)
	assert.Equal(t, compare.VerdictWorse, cmp.Changes[0].Verdict, "%+v", cmp.Changes[0])
	assert.Equal(t, 6, cmp.Changes[0].BaseN)

	other := capacity(10, 9, 11)
	other.SLOs[0], _ = results.ParseThreshold("ttft_p95_ms <= 800")
	_, err = compare.Capacities(base[:1], []compare.CapacityRun{{Label: "loose", Capacity: other}}, compare.Options{})
	require.True(t, errors.Is(err, compare.ErrIncomparable), "%v", err)
	assert.Contains(t, err.Error(), "loose has")
	assert.Contains(t, err.Error(), "ttft_p95_ms <= 800")
}
