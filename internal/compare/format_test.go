package compare_test

import (
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/compare"
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
