package compare_test

import (
	"fmt"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/results"
)

// The table and the Markdown a person reads, from fixed (seeded)
// payloads: one case slower by 4 ms, one that went from pass to fail.
func TestFormatsAsPeopleReadThem(t *testing.T) {
	base := synth("base.json", []string{"greet", "tides"}, 20, 20, 1, 1)
	cand := synth("cand.json", []string{"greet", "tides"}, 20, 24, 1, 2)
	cand.Payload.Results[25].OK, cand.Payload.Results[25].Quality.OK = false, false
	cand.Payload.Results[25].Quality.Issues = []string{"checks.min_chars: content has 5 chars, want >= 40"}
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand},
		compare.Options{Gates: []compare.Gate{gate(t, "ttft_p50_ms +10%")}})
	require.NoError(t, err)
	snaps.MatchSnapshot(t, string(compare.Table(cmp)))
	snaps.MatchSnapshot(t, string(compare.Markdown(cmp)))
}

// The change column is labelled for what it holds: a median's change is
// the Hodges-Lehmann shift, which can read against the two medians
// beside it, and the table and the Markdown say so.
func TestChangeColumnSaysItIsTheHodgesLehmannShift(t *testing.T) {
	base := synth("base.json", []string{"greet"}, 20, 20, 1, 1)
	cand := synth("cand.json", []string{"greet"}, 20, 24, 1, 2)
	cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand}, compare.Options{})
	require.NoError(t, err)
	for name, out := range map[string]string{"table": string(compare.Table(cmp)), "markdown": string(compare.Markdown(cmp))} {
		assert.Contains(t, out, "shift [interval]", "%s: the column's header", name)
		assert.Contains(t, out, "shift [interval] is, by row:", "%s: the legend", name)
		assert.Contains(t, out, "p50, gen_tps, rates: the Hodges-Lehmann shift (the median of all candidate - base differences, not the medians' difference) and its interval", name)
		assert.Contains(t, out, "error_rate: candidate - base failed share and Newcombe's interval", name)
		assert.NotContains(t, out, "change [interval]", name)
	}
	assert.Contains(t, string(compare.Markdown(cmp)), "\n- p95, p99, itl: ", "a list in Markdown")
}

// More than ten untested rows (one sample a side: a dataset run's
// generated cases) are counted in one line, not listed; the run-wide
// rows stay, and the header counts the family the rows tested.
func TestUntestedRowsAreCountedNotListed(t *testing.T) {
	d, lo, hi := 31.2, 16.1, 44.4
	cmp := &results.Comparison{Alpha: 0.05, Changes: []results.Change{
		{Case: "", Metric: "ttft_p50_ms", Unit: "ms", Delta: &d, Low: &lo, High: &hi, Verdict: compare.VerdictWorse},
	}}
	for i := range 12 {
		cmp.Changes = append(cmp.Changes, results.Change{Case: fmt.Sprintf("random-%d", i), Metric: "ttft_p50_ms", Unit: "ms", Verdict: compare.VerdictTooFew})
	}
	for _, out := range []string{string(compare.Table(cmp)), string(compare.Markdown(cmp))} {
		assert.Contains(t, out, "(12 rows with too few samples to test are not shown; --format json lists every row)")
		assert.NotContains(t, out, "random-3", "an untested row is not listed")
		assert.Contains(t, out, "ttft_p50_ms", "the tested row is")
		assert.Contains(t, out, "alpha 0.05 over the 1 rows with samples to test, of 13 (familywise)")
	}
	cmp.Changes = cmp.Changes[:11] // ten untested rows: all listed
	assert.Contains(t, string(compare.Table(cmp)), "random-9")
}
