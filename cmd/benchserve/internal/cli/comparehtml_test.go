package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageData is what the compare page's data block says about its
// comparison and figures.
type pageData struct {
	Comparisons []struct {
		Kind          string
		Regressed     bool
		BaseRuns      []string `json:"base_runs"`
		CandidateRuns []string `json:"candidate_runs"`
		CDFs          []struct {
			Figure, Case, Metric string
			Base, Candidate      []float64
		}
	}
	Figures []struct{ ID, Kind string }
}

var dataBlockRE = regexp.MustCompile(`(?s)<script type="application/json" id="benchserve-data">(.*?)</script>`)

func readPage(t *testing.T, path string) (string, pageData) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err, "the page %s was written", path)
	m := dataBlockRE.FindSubmatch(b)
	require.NotNil(t, m, "the page embeds its data block")
	var d pageData
	require.NoError(t, json.Unmarshal(m[1], &d), "the data block is JSON")
	require.Len(t, d.Comparisons, 1, "the page holds the one comparison")
	return string(b), d
}

// TestCompareHTMLWorkloads: the page of a scripted 20 ms → 24 ms TTFT
// says REGRESSION in its header, exits 1, and overlays both sides'
// requests in the case's CDF chart (20 TTFTs a side, the payloads'
// own); the same server twice says no regression.
func TestCompareHTMLWorkloads(t *testing.T) {
	dir := t.TempDir()
	wl := compareWorkload(t, dir)
	template := runAt(t, wl, dir, "run.json", time.Millisecond)
	base := scripted(t, template, dir, "base.json", 20, 1)
	again := scripted(t, template, dir, "again.json", 20, 2)
	slow := scripted(t, template, dir, "slow.json", 24, 3)
	out := filepath.Join(dir, "cmp.html")

	res := invoke(t, "compare", "--format", "html", "--output", out, base, slow)
	require.Equal(t, ExitFailed, res.code, "a slower TTFT regresses: %s", res.stderr)
	assert.Equal(t, "wrote "+out+"\n", res.stdout, "stdout names the page")
	assert.Contains(t, res.stderr, "the candidate regressed", "stderr says the verdict")
	page, d := readPage(t, out)
	assert.Contains(t, page, `<p class="headline bad" id="cmp-1-verdict">✗ `+slow+` vs base `+base+`: REGRESSION: `, "the page's header says REGRESSION")
	assert.Regexp(t, `(?s)<details class="case" id="cmp-1-c1" open>\s*<summary><span class="case">greet</span>.*?<td><code>ttft_p50_ms</code>.*?<span class="delta worse">worse</span>`, page,
		"the case's rows are shown open, its TTFT row worse")
	c := d.Comparisons[0]
	assert.Equal(t, []string{"run-1"}, c.BaseRuns, "the base's run is in the page")
	assert.Equal(t, []string{"run-2"}, c.CandidateRuns, "and the candidate's")
	var metrics []string
	for _, cdf := range c.CDFs {
		assert.Equal(t, "greet", cdf.Case, "the one case")
		assert.Equal(t, "cmp-1-case-1", cdf.Figure, "all in the case's figure")
		assert.Len(t, cdf.Base, 20, "%s: every base request", cdf.Metric)
		assert.Len(t, cdf.Candidate, 20, "%s: every candidate request", cdf.Metric)
		assert.True(t, slices.IsSorted(cdf.Base) && slices.IsSorted(cdf.Candidate), "%s: sorted for the CDF", cdf.Metric)
		metrics = append(metrics, cdf.Metric)
		if cdf.Metric == "ttft_ms" {
			assert.InDelta(t, 20, cdf.Base[10], 3, "the base's median TTFT is the scripted 20 ms")
			assert.InDelta(t, 24, cdf.Candidate[10], 3, "the candidate's is 24 ms")
		}
	}
	assert.Equal(t, []string{"ttft_ms", "tpot_ms", "e2e_latency_ms"}, metrics, "TTFT, TPOT and E2EL are overlaid")
	var ids []string
	for _, f := range d.Figures {
		ids = append(ids, f.ID)
	}
	assert.Equal(t, "cmp-1-case-1", ids[0], "the overlay chart comes first")
	assert.Contains(t, ids, "run-1-ttft", "each run's own report follows")
	assert.Regexp(t, `(?s)<figure class="chart" id="cmp-1-case-1">\s*<svg class="plot"[^>]*>.*?<path`, page, "the overlay is an inline SVG that draws")
	assert.NotContains(t, page, "<script src", "nothing is loaded")

	res = invoke(t, "compare", "--format", "html", "--output", out, base, again)
	assert.Equal(t, ExitOK, res.code, "the same server twice: %s", res.stderr)
	page, d = readPage(t, out)
	assert.False(t, d.Comparisons[0].Regressed, "no regression")
	assert.Contains(t, page, `<p class="headline good" id="cmp-1-verdict">✓ `, "the header says so")
}

// TestCompareHTMLCapacities: a capacity comparison's page draws both
// searches' intervals and probes in one chart.
func TestCompareHTMLCapacities(t *testing.T) {
	dir := t.TempDir()
	base := writeCapacity(t, dir, "base.json", []float64{5, 10}, []float64{11, 20})
	lower := writeCapacity(t, dir, "lower.json", []float64{5, 7}, []float64{8, 10})
	out := filepath.Join(dir, "cmp.html")
	res := invoke(t, "compare", "--format", "html", "--output", out, base, lower)
	require.Equal(t, ExitFailed, res.code, "a lower capacity regresses: %s", res.stderr)
	page, d := readPage(t, out)
	assert.Equal(t, "capacity", d.Comparisons[0].Kind, "a capacity comparison")
	assert.Equal(t, "cmp-1-capacity", d.Figures[0].ID, "its overlay chart is listed first")
	assert.Regexp(t, `(?s)<figure class="chart" id="cmp-1-capacity">\s*<svg class="plot"[^>]*aria-label="Capacity of base and candidate"`, page, "and drawn")
	assert.Contains(t, page, `base: `+base, "the base's search is a row of the chart")
	assert.Contains(t, page, `candidate: `+lower, "and so is the candidate's")
}

// TestCompareHTMLToStdout: without --output the page goes to stdout when
// it is not a terminal, and is refused (exit 2) when it is.
func TestCompareHTMLToStdout(t *testing.T) {
	dir := t.TempDir()
	base := writeCapacity(t, dir, "base.json", []float64{5, 10}, []float64{11, 20})
	cand := writeCapacity(t, dir, "cand.json", []float64{5, 10}, []float64{11, 21})
	res := invoke(t, "compare", "--format", "html", base, cand)
	assert.Equal(t, ExitOK, res.code, "a search against a like one: %s", res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "<!DOCTYPE html>"), "the page is on stdout")

	old := stdoutIsTerminal
	stdoutIsTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { stdoutIsTerminal = old })
	res = invoke(t, "compare", "--format", "html", base, cand)
	assert.Equal(t, ExitUsage, res.code, "no page on a terminal")
	assert.Contains(t, res.stderr, "give --output cmp.html", "stderr says what to do")
	assert.Empty(t, res.stdout, "nothing written")
}
