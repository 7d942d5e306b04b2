package report_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

var dataBlock = regexp.MustCompile(`(?s)<script type="application/json" id="benchserve-data">(.*?)</script>`)

func render(t *testing.T, runs ...report.Run) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, report.Write(&buf, runs...), "report.Write must succeed for valid runs")
	return buf.String()
}

// dataOf returns the report's embedded data section, decoded.
func dataOf(t *testing.T, page string) (raw string, data map[string]any) {
	t.Helper()
	m := dataBlock.FindStringSubmatch(page)
	require.NotNil(t, m, "the report must embed a benchserve-data JSON block")
	require.NoError(t, json.Unmarshal([]byte(m[1]), &data), "the data block must be valid JSON")
	return m[1], data
}

// renderWith is render with options.
func renderWith(t *testing.T, opts report.Options, runs ...report.Run) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, report.WriteWith(&buf, opts, runs...), "report.WriteWith must succeed for valid runs")
	return buf.String()
}

func TestDataSnapshot(t *testing.T) {
	raw, _ := dataOf(t, renderWith(t, fixedOptions(), fixedRuns()...))
	snaps.MatchJSON(t, raw)
}

// comparisonRows indexes a data block's first comparison's rows by case
// and metric.
func comparisonRows(t *testing.T, data map[string]any) (map[string]any, map[[2]string]map[string]any) {
	t.Helper()
	comps := data["comparisons"].([]any)
	require.Len(t, comps, 1, "one comparison was given")
	c := comps[0].(map[string]any)
	rows := map[[2]string]map[string]any{}
	for _, ch := range c["changes"].([]any) {
		m := ch.(map[string]any)
		rows[[2]string{m["case"].(string), m["metric"].(string)}] = m
	}
	return c, rows
}

// TestComparisonIsStatistical: the page shows the verdicts the
// comparison computed. Two requests a side cannot tell json-object's
// TTFT 137.5 → 187.5 ms (+36.4%) from noise: the row reads "too few
// samples", where the old fixed ±5% band called it worse.
func TestComparisonIsStatistical(t *testing.T) {
	page := renderWith(t, fixedOptions(), fixedRuns()...)
	_, data := dataOf(t, page)
	c, rows := comparisonRows(t, data)
	assert.Equal(t, []any{"baseline qwen3-8b-4bit"}, c["base"], "the base side is the baseline's label")
	assert.Equal(t, []any{"run-1"}, c["base_runs"], "the base side is found among the page's runs by its label")
	assert.Equal(t, []any{"run-2"}, c["candidate_runs"], "and so is the candidate")
	assert.Equal(t, true, c["regressed"], "json-object and long-summary went from pass to fail")
	assert.Len(t, c["regressions"], 2, "two pass→fail regressions are listed")

	ttft := rows[[2]string{"json-object", "ttft_p50_ms"}]
	require.NotNil(t, ttft, "json-object has a ttft_p50_ms row")
	assert.EqualValues(t, 137.5, ttft["base"], "the base's median TTFT of json-object")
	assert.EqualValues(t, 187.5, ttft["candidate"], "the candidate's median TTFT of json-object")
	assert.Equal(t, "too few samples", ttft["verdict"], "2 requests a side cannot support a verdict on +36.4%")
	assert.Nil(t, ttft["low"], "the interval of 2 against 2 cannot be bounded")
	group := regexp.MustCompile(`(?s)<details class="case" id="cmp-1-c3">\s*<summary><span class="case">json-object</span>.*?</details>`).FindString(page)
	require.NotEmpty(t, group, "json-object's rows are folded under its name")
	assert.True(t, strings.Contains(group, `<tr class=""><td><code>ttft_p50_ms</code></td><td class="num">137.5 ms</td><td class="num">187.5 ms</td><td class="num">&#43;50.0 ms (&#43;36.4%) [unbounded]</td><td><span class="delta few">too few samples</span></td>`),
		"the page's row shows both medians, the change without an interval, and too few samples, not worse")
	assert.True(t, strings.Contains(group, `<figure class="chart" id="cmp-1-case-3">`), "the case's CDF chart is in its group")
	assert.NotContains(t, page, "&#43;36.4% worse", "no fixed-band verdict is left")

	tpot := rows[[2]string{"", "tpot_p50_ms"}]
	assert.Equal(t, "better", tpot["verdict"], "over the four cases paired, the candidate's TPOT is significantly lower")
	assert.Equal(t, "~", rows[[2]string{"", "ttft_p50_ms"}]["verdict"], "its TTFT over all cases is not significantly changed")
}

func TestPageShowsEachPart(t *testing.T) {
	page := renderWith(t, fixedOptions(), fixedRuns()...)
	for _, want := range []string{
		`<h2>Comparison <span class="kind">workload</span></h2>`,
		`<p class="headline bad" id="cmp-1-verdict">✗ candidate qwen3-8b-mtp vs base baseline qwen3-8b-4bit: REGRESSION: 2 pass→fail regressions</p>`,
		`<h3>Regressions (whatever the numbers)</h3>`,
		`<li>case &#34;json-object&#34;: passed in the base (2 of 2), fails in the candidate (1 of 2 failed): required_regex &#39;^\s*\{&#39; did not match</li>`,
		`<span class="delta better">better</span>`,
		`<span class="delta same">~</span>`,
		`<dt>model</dt><dd>qwen3-8b-4bit</dd>`,
		`vllm-mlx · batched engine · prefix_cache`,
		`Apple M3 Max · 40 GPU cores · 128 GB · macOS-15.3-arm64`,
		`<code>base0001</code>`,
		`2025-03-04T10:00:00&#43;00:00`,
		`over policy timeout (of 2)`,
		`<span class="status s-timeout">1/2 over</span>`,
		`<span class="msg">content shorter than min_chars=400 (got 212)</span>`,
		`<span class="err">stream: read body: unexpected EOF</span>`,
		`<h3>Latency distributions</h3>`,
		`<h3>Request timeline</h3>`,
		`<h3>Sweep</h3>`,
		`id="run-3-throughput"`,
	} {
		assert.True(t, strings.Contains(page, want), "the report should show %q", want)
	}
}

var figureRE = regexp.MustCompile(`(?s)<figure class="chart" id="([^"]+)">\s*<svg class="plot"[^>]*>(.*?)</svg>`)

func TestEveryFigureHasAChart(t *testing.T) {
	page := renderWith(t, fixedOptions(), fixedRuns()...)
	_, data := dataOf(t, page)
	var want []string
	for _, f := range data["figures"].([]any) {
		want = append(want, f.(map[string]any)["id"].(string))
	}
	var got []string
	for _, m := range figureRE.FindAllStringSubmatch(page, -1) {
		got = append(got, m[1])
		assert.Contains(t, m[2], "<path", "figure %s: the SVG must draw something", m[1])
	}
	assert.Equal(t, []string{
		"cmp-1-case-1", "cmp-1-case-2", "cmp-1-case-3", "cmp-1-case-4",
		"run-1-ttft", "run-1-tpot", "run-1-e2el", "run-1-timeline",
		"run-2-ttft", "run-2-tpot", "run-2-e2el", "run-2-timeline",
		"run-3-throughput", "run-3-ttft",
		"run-4-capacity",
	}, want, "data section lists every figure")
	assert.Equal(t, want, got, "every listed figure is in the page with an inline SVG")
}

func TestDeterministic(t *testing.T) {
	a := render(t, fixedRuns()...)
	b := render(t, fixedRuns()...)
	assert.True(t, a == b, "the same runs must give byte-identical reports (no random ids, no clock)")
	assert.NotContains(t, a, "<?xml", "inline SVGs carry no XML prolog")
}

func TestNoNetwork(t *testing.T) {
	page := render(t, fixedRuns()...)
	for _, u := range regexp.MustCompile(`(?i)(?:https?:)?//[a-z0-9.-]+[^\s"'<>)]*`).FindAllString(page, -1) {
		assert.Contains(t, []string{"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, u,
			"the only URLs allowed are SVG namespace names, which are never fetched; found %q", u)
	}
	for _, bad := range []string{"<script src", "<link rel=\"stylesheet\"", "@import", "@font-face", "url("} {
		assert.NotContains(t, page, bad, "the report must not load anything (%s)", bad)
	}
}

func TestEscaping(t *testing.T) {
	evil := `<script>alert("x")</script>`
	p := baselinePayload()
	p.Results[0].CaseID = evil
	p.Results[1].Quality.Issues = []string{`</script><img src=x onerror=alert(1)>`}
	p.Results[2].ModelID = `"><b>model</b>`
	page := render(t, report.FromPayload(p, `<i>label</i>`))
	for _, raw := range []string{`<script>alert`, `<img src=x`, `<b>model</b>`, `<i>label</i>`} {
		assert.NotContains(t, page, raw, "payload strings must be escaped, found raw %q", raw)
	}
	assert.Contains(t, page, `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`, "case id escaped in the table")
	assert.Contains(t, page, `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; #0`, "case id escaped in the SVG tick labels")
	assert.Equal(t, 1, strings.Count(page, "</script>"), "only the data block closes a script element")
	_, data := dataOf(t, page)
	cases := data["runs"].([]any)[0].(map[string]any)["cases"].([]any)
	assert.Equal(t, evil, cases[0].(map[string]any)["case_id"], "the data section keeps the original string")
}

// TestControlsAndBidiAreVisible: a server's model name and error
// message holding a right-to-left override, a C1 control, terminal
// escapes and a zero width space reach the page only as visible \u
// escapes, in the table, the SVG labels and the data block alike, and
// the data block still decodes to the original strings.
func TestControlsAndBidiAreVisible(t *testing.T) {
	poison := "evil\x1b]0;title\x07\x1b[8m\r ok\u202eright\u0085\u200b"
	p := baselinePayload()
	p.Results[0].CaseID = "case-" + poison
	p.Results[1].Quality.Issues = []string{"boom " + poison}
	p.Results[2].ModelID = "model-" + poison
	page := render(t, report.FromPayload(p, "label-"+poison))
	for i, r := range page {
		if r != '\n' && r != '\t' && present.Unsafe(r) {
			assert.Failf(t, "a raw control or format character is in the page", "%U at byte %d: %q", r, i, page[max(0, i-60):min(len(page), i+60)])
			break
		}
	}
	shown := `evil\u001b]0;title\u0007\u001b[8m\u000d ok\u202eright\u0085\u200b`
	assert.Contains(t, page, "case-"+shown, "the case id's controls are visible")
	assert.Contains(t, page, "boom "+shown, "the issue's controls are visible")
	assert.Contains(t, page, "label-"+shown, "the label's controls are visible")
	_, data := dataOf(t, page)
	run := data["runs"].([]any)[0].(map[string]any)
	assert.Equal(t, "case-"+poison, run["cases"].([]any)[0].(map[string]any)["case_id"], "the data block decodes to the original string")
}

// TestALongModelNameIsCutOnThePage: a 10 KB model name is cut where the
// page shows it, with a mark saying how much, and kept whole in the data
// block.
func TestALongModelNameIsCutOnThePage(t *testing.T) {
	long := "model-" + strings.Repeat("m", 10_240)
	p := baselinePayload()
	for i := range p.Results {
		p.Results[i].ModelID = long
	}
	page := render(t, report.FromPayload(p, "run"))
	raw, data := dataOf(t, page)
	text := strings.Replace(page, raw, "", 1)
	assert.NotContains(t, text, strings.Repeat("m", present.NameLimit), "the page's text shows no more than a name's limit of it")
	assert.Contains(t, text, "…(&#43;10,146 bytes)", "and says how much was cut (html/template writes + as &#43;)")
	assert.Equal(t, long, data["runs"].([]any)[0].(map[string]any)["model"], "the data block keeps the whole name")
}

func TestWriteErrors(t *testing.T) {
	var buf bytes.Buffer
	assert.ErrorContains(t, report.Write(&buf), "no runs", "a report needs at least one run")
	assert.ErrorContains(t, report.Write(&buf, report.Run{Label: "x"}), `run 1 ("x"): neither a payload nor sweep rows nor a capacity result`, "an empty Run is an error naming it")
	assert.Zero(t, buf.Len(), "nothing is written on error")
}

func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644), "setup: an old report")
	require.NoError(t, report.WriteFile(path, report.FromPayload(baselinePayload(), "")), "WriteFile replaces the old report")
	b, err := os.ReadFile(path)
	require.NoError(t, err, "read the report back")
	assert.True(t, strings.HasPrefix(string(b), "<!DOCTYPE html>"), "the file is the new HTML page")
	assert.Contains(t, string(b), "promotion base0001", "an empty label becomes workload name and run id")
	err = report.WriteFile(filepath.Join(t.TempDir(), "missing", "r.html"), report.FromPayload(baselinePayload(), ""))
	assert.ErrorContains(t, err, "results: write", "a missing directory fails the atomic write")
}

func TestEmptyPayload(t *testing.T) {
	p := resultio.BuildPayload(resultio.PayloadInput{RunID: "empty001", Workload: results.WorkloadInfo{Name: "w"}})
	page := render(t, report.FromPayload(p, ""))
	assert.Contains(t, page, "w empty001", "an empty run still gets its section")
	assert.NotContains(t, page, `<figure class="chart"`, "no requests, no charts")
}

// TestEveryRateNull: a run whose every TPOT and gen_tps is null (whole
// answers in one read) renders, with an empty chart that says so, instead
// of looping forever on a NaN axis.
func TestEveryRateNull(t *testing.T) {
	stop := "stop"
	var recs []results.Record
	for rep := range 2 {
		recs = append(recs, results.Record{RunID: "burst001", CaseID: "hi", Repetition: rep, Workload: "w",
			StartedAt: "2026-01-02T03:04:05.000000+00:00", OK: true,
			Metrics: results.Metrics{TTFTms: 2, E2ELms: 3, TPOTms: math.NaN(), GenTPS: math.NaN(), CompletionTokens: 50, TokenChunks: 50, UsagePresent: true},
			Quality: results.Quality{OK: true, Issues: []string{}, FinishReason: &stop, ContentChars: 200}})
	}
	p := resultio.BuildPayload(resultio.PayloadInput{RunID: "burst001", Workload: results.WorkloadInfo{Name: "w"}, Records: recs})
	type out struct {
		page string
		err  error
	}
	done := make(chan out, 1)
	go func() {
		var buf bytes.Buffer
		err := report.Write(&buf, report.FromPayload(p, ""))
		done <- out{buf.String(), err}
	}()
	select {
	case o := <-done:
		require.NoError(t, o.err, "the report renders")
		assert.Contains(t, o.page, "(no measured samples)", "the empty TPOT chart says why it is empty")
	case <-time.After(30 * time.Second):
		t.Fatal("rendering a run with no measured rates did not finish")
	}
}

// TestInterruptedAreNotFailures: a Ctrl-C'd run's requests in flight are
// interrupted, as the payload says (failure_count 0, interrupted_count
// 3): the page counts them as interrupted, not as failed checks or
// request errors, keeps them out of the latency figures, and says the
// run was interrupted instead of PASS or FAIL.
func TestInterruptedAreNotFailures(t *testing.T) {
	var recs []results.Record
	for rep := range 5 {
		r := results.Record{RunID: "stop0001", CaseID: "hi", Repetition: rep, Workload: "w",
			StartedAt: "2026-01-02T03:04:05.000000+00:00", OK: true,
			Metrics: results.Metrics{TTFTms: 10, E2ELms: 100, TPOTms: 2, GenTPS: 500, CompletionTokens: 50, UsagePresent: true},
			Quality: results.Quality{OK: true, Issues: []string{}, ContentChars: 200}}
		if rep >= 2 {
			r.Metrics.TTFTms, r.Metrics.E2ELms = 9000, 9000 // cut at the stop: no measurement
			results.MarkInterrupted(&r)
		}
		recs = append(recs, r)
	}
	p := resultio.BuildPayload(resultio.PayloadInput{RunID: "stop0001", Workload: results.WorkloadInfo{Name: "w"}, Records: recs})
	require.Equal(t, 0, p.Summary.FailureCount, "the payload counts no failure")
	require.Equal(t, 3, p.Summary.InterruptedCount, "and 3 interrupted")
	page := render(t, report.FromPayload(p, ""))
	_, data := dataOf(t, page)
	run := data["runs"].([]any)[0].(map[string]any)
	counts := run["counts"].(map[string]any)
	assert.Equal(t, map[string]any{"requests": 5.0, "cases": 1.0, "passed": 2.0, "failed": 0.0, "errored": 0.0,
		"interrupted": 3.0, "policy_checked": 0.0, "policy_over": 0.0}, counts, "interrupted, not failed")
	cs := run["cases"].([]any)[0].(map[string]any)
	assert.Equal(t, true, cs["passed"], "the case failed nothing")
	assert.Equal(t, 3.0, cs["interrupted"])
	assert.Equal(t, 100.0, cs["p50"].(map[string]any)["e2e_latency_ms"], "the cut requests are out of the latency figures")
	assert.Contains(t, page, `<span class="n">3</span><span class="t">interrupted`, "the tile says interrupted")
	assert.Contains(t, page, `<span class="n">0</span><span class="t">failed checks</span>`)
	assert.Contains(t, page, `<span class="n">0</span><span class="t">request errors</span>`)
	assert.Contains(t, page, `<span class="badge warn">INTERRUPTED</span>`, "neither PASS nor FAIL")
}
