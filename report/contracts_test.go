package report_test

import (
	"math"
	"regexp"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

// conformancePayload is a fixed conformance run: a MUST that holds, a
// MUST that fails, a SHOULD that fails (a warning) and a skipped one.
func conformancePayload() *results.Payload {
	rec := func(name, level, verdict string, failing bool, evidence, sent, got string) results.Record {
		nan := math.NaN()
		return results.Record{RunID: "c0ffee00", Timestamp: "2026-12-01T12:00:00.000000+00:00", StartedAt: "2026-12-01T12:00:00.000000+00:00",
			Workload: "conformance", CaseID: name, Tags: []string{}, ModelID: "m",
			Metrics: results.Metrics{TTFTms: nan, TPOTms: nan, GenTPS: nan, PromptTPS: nan, E2ELms: 12},
			Quality: results.Quality{OK: !failing, Issues: []string{}}, OK: !failing,
			Contract: &results.Contract{Name: name, Level: level, Check: "kind", Verdict: verdict, Failing: failing,
				Rule: "the rule of " + name, Reference: "https://platform.openai.com/docs/api-reference/chat/streaming",
				Evidence: evidence, Sent: sent, Received: got}}
	}
	recs := []results.Record{
		rec("stream.framing", "MUST", "pass", false, "19 events, then data: [DONE]", "", ""),
		rec("stream.usage_chunk", "MUST", "fail", true, "the last chunk is not the usage chunk", `POST /v1/chat/completions {"stream":true}`, `event 18: data: {"choices":[{"index":0}],"usage":{}}`),
		rec("choices.n", "SHOULD", "fail", false, "n 2 gave choice indexes [0]", `POST /v1/chat/completions {"n":2}`, "event 9: data: {}"),
		rec("errors.wrong_api_key", "MUST", "skip", false, "the server requires no API key", "", ""),
	}
	recs[1].Quality.Issues = []string{"stream.usage_chunk (MUST): the last chunk is not the usage chunk"}
	p := &results.Payload{RunID: "c0ffee00", Timestamp: "2026-12-01T12:00:00.000000+00:00",
		Workload: results.WorkloadInfo{Name: "conformance", Path: "workloads/conformance.json", Defaults: map[string]any{}, Repetitions: 1},
		Results:  recs}
	p.Summary = results.Summarize(p.Results)
	return p
}

var contractsSection = regexp.MustCompile(`(?s)<h3>Protocol contracts</h3>.*?</table></div>`)

func TestReportShowsTheContractTable(t *testing.T) {
	page := render(t, report.FromPayload(conformancePayload(), "conformance"))
	table := contractsSection.FindString(page)
	assert.NotEmpty(t, table, "a conformance run gets a contract table")
	assert.NotContains(t, page, "<h3>Cases</h3>", "contracts are not listed again as cases")
	assert.NotContains(t, page, "Latency distributions", "contracts are checked, not timed: no latency charts")
	snaps.MatchSnapshot(t, table)
}

// TestConformanceHeaderCountsContracts: a conformance result's header
// counts its contracts and their verdicts, not "4 requests · 0 cases".
func TestConformanceHeaderCountsContracts(t *testing.T) {
	page := render(t, report.FromPayload(conformancePayload(), "conformance"))
	tiles := regexp.MustCompile(`(?s)<div class="tiles">.*?</div>\s*</div>`).FindString(page)
	require.NotEmpty(t, tiles, "the header's tiles")
	assert.NotContains(t, tiles, "0 cases", "a conformance result has contracts, not cases")
	assert.NotContains(t, tiles, "passed checks")
	assert.Contains(t, tiles, `<span class="n">4</span><span class="t">contracts judged</span>`)
	assert.Contains(t, tiles, `<div class="tile good"><span class="n">1</span><span class="t">pass</span></div>`)
	assert.Contains(t, tiles, `<div class="tile bad"><span class="n">1</span><span class="t">fail</span></div>`)
	assert.Contains(t, tiles, `<div class="tile warn"><span class="n">1</span><span class="t">warn</span></div>`)
	assert.Contains(t, tiles, `<div class="tile "><span class="n">1</span><span class="t">skip</span></div>`)
	assert.NotContains(t, tiles, ">info<", "no tile for an outcome none had")
}

// TestComparisonShowsAContractThatBroke: a contract that passed in the
// base and fails in the candidate is listed as a regression in the
// comparison's section and the page's header; the changed outcomes are
// listed (a warning and a skip are outcomes, not failures).
func TestComparisonShowsAContractThatBroke(t *testing.T) {
	base, cand := conformancePayload(), conformancePayload()
	base.Results[1].Contract.Verdict, base.Results[1].Contract.Failing = "pass", false
	base.Results[1].Quality.OK, base.Results[1].OK = true, true
	base.Workload.Digest, cand.Workload.Digest = "sha256:c0ffee", "sha256:c0ffee"
	cmp, err := compare.Workloads([]compare.Run{{Label: "v1", Payload: base}}, []compare.Run{{Label: "v2", Payload: cand}}, compare.Options{})
	require.NoError(t, err, "the two runs of the suite compare")
	page := renderWith(t, report.Options{Comparisons: []*results.Comparison{cmp}}, report.FromPayload(base, "v1"), report.FromPayload(cand, "v2"))
	_, data := dataOf(t, page)
	comps := data["comparisons"].([]any)
	require.Len(t, comps, 1, "the comparison given is in the data block")
	c := comps[0].(map[string]any)
	assert.Equal(t, "conformance", c["kind"], "runs of contracts only compare as conformance")
	assert.Equal(t, []any{`contract "stream.usage_chunk": pass in the base, fail in the candidate`}, c["regressions"], "the broken contract is the regression")
	assert.Equal(t, []any{`contract "stream.usage_chunk": pass → fail`}, c["contract_changes"], "only its outcome changed")
	assert.Contains(t, page, `<p class="headline bad" id="cmp-1-verdict">✗ v2 vs base v1: REGRESSION: 1 pass→fail regression</p>`, "the page's header says so")
	assert.Contains(t, page, `<li>contract &#34;stream.usage_chunk&#34;: pass in the base, fail in the candidate</li>`, "the section lists it")
}
