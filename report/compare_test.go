package report_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

// TestComparisonEscapesTheServersStrings: a case id and a check's
// message holding markup reach the comparison's table, summary, lists
// and chart labels only escaped.
func TestComparisonEscapesTheServersStrings(t *testing.T) {
	evil := `<script>alert("x")</script>`
	base, cand := baselinePayload(), candidatePayload()
	for _, p := range []*results.Payload{base, cand} {
		for i := range p.Results {
			if p.Results[i].CaseID == "json-object" {
				p.Results[i].CaseID = evil
			}
		}
	}
	runs := []report.Run{report.FromPayload(base, "b"), report.FromPayload(cand, "c")}
	page := renderWith(t, report.Options{Comparisons: []*results.Comparison{compareFixed(runs[0], runs[1])}}, runs...)
	assert.NotContains(t, page, `<script>alert`, "no raw markup from a case id")
	assert.Equal(t, 1, strings.Count(page, "</script>"), "only the data block closes a script element")
	assert.Contains(t, page, `<summary><span class="case">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</span>`, "the case's summary shows it escaped")
	assert.Contains(t, page, `aria-label="Latency CDFs of &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"`, "and so does its chart")
}

// TestCapacityComparisonChart: two capacity searches compared get one
// chart of both intervals and probes, a row per search.
func TestCapacityComparisonChart(t *testing.T) {
	base := capacityRun()
	cand := capacityRun()
	cand.Label = "candidate"
	c, err := compare.Capacities([]compare.CapacityRun{{Label: base.Label, Capacity: base.Capacity}},
		[]compare.CapacityRun{{Label: cand.Label, Capacity: cand.Capacity}}, compare.Options{})
	require.NoError(t, err, "the same search twice compares")
	page := renderWith(t, report.Options{Comparisons: []*results.Comparison{c}}, base, cand)
	_, data := dataOf(t, page)
	figs := data["figures"].([]any)
	assert.Equal(t, "cmp-1-capacity", figs[0].(map[string]any)["id"], "the comparison's chart is listed first")
	chart := regexp.MustCompile(`(?s)<figure class="chart" id="cmp-1-capacity">.*?</figure>`).FindString(page)
	require.NotEmpty(t, chart, "the chart is in the page")
	assert.Contains(t, chart, ">base: capacity</text>", "the base's search is a row")
	assert.Contains(t, chart, ">candidate: candidate</text>", "and the candidate's")
	assert.Contains(t, page, `<p class="headline good" id="cmp-1-verdict">✓ candidate vs base capacity: no regression</p>`, "the same capacity twice is no regression")
}

// TestComparisonsAlone: a page of comparisons needs no runs (and then
// has no overlay charts); a nil comparison is an error.
func TestComparisonsAlone(t *testing.T) {
	c := fixedOptions().Comparisons[0]
	page := renderWith(t, report.Options{Comparisons: []*results.Comparison{c}})
	_, data := dataOf(t, page)
	cmp := data["comparisons"].([]any)[0].(map[string]any)
	assert.Empty(t, cmp["base_runs"], "no run of the base in the page")
	assert.Nil(t, cmp["cdfs"], "no samples to overlay")
	assert.Contains(t, page, "REGRESSION: 2 pass→fail regressions", "the verdict is still shown")

	var buf bytes.Buffer
	err := report.WriteWith(&buf, report.Options{Comparisons: []*results.Comparison{c, nil}})
	assert.ErrorContains(t, err, "report: write: comparison 2: nil", "a nil comparison is named by its position")
	assert.Zero(t, buf.Len(), "nothing is written on error")
}

// TestComparisonLabelsTheShift: the change column of the page says what
// it holds, as compare's table does: a median's change is the
// Hodges-Lehmann shift with its interval, not the medians' difference.
func TestComparisonLabelsTheShift(t *testing.T) {
	page := renderWith(t, fixedOptions())
	assert.Contains(t, page, `<th class="num">shift [interval]</th>`, "the column's header")
	assert.NotContains(t, page, "change [interval]")
	assert.Contains(t, page, `<p class="hint legend">shift [interval] is, by row:</p>`, "the legend's title")
	assert.Contains(t, page, "<li>p50, gen_tps, rates: the Hodges-Lehmann shift (the median of all candidate - base differences, not the medians&#39; difference) and its interval</li>")
}
