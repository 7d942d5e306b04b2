package compare_test

import (
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
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
