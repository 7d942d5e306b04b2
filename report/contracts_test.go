package report_test

import (
	"math"
	"regexp"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/stretchr/testify/assert"

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

func TestComparisonCountsAContractThatBroke(t *testing.T) {
	base := conformancePayload()
	base.Results[1].Contract.Verdict, base.Results[1].Contract.Failing = "pass", false
	_, data := dataOf(t, render(t, report.FromPayload(base, "v1"), report.FromPayload(conformancePayload(), "v2")))
	comps := data["comparisons"].([]any)
	if assert.Len(t, comps, 1, "two runs of the suite are compared") {
		c := comps[0].(map[string]any)
		assert.EqualValues(t, 1, c["regressions"], "stream.usage_chunk went from pass to fail")
		byCase := map[string]string{}
		for _, cd := range c["cases"].([]any) {
			m := cd.(map[string]any)
			byCase[m["case_id"].(string)] = m["status"].(string)
		}
		assert.Equal(t, "pass→fail", byCase["stream.usage_chunk"])
		assert.Equal(t, "pass", byCase["choices.n"], "a warning is not a failure of the run")
		assert.Equal(t, "pass", byCase["errors.wrong_api_key"], "a skip is not a failure")
	}
}
