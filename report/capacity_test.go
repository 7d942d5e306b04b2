package report_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

func TestLoadCapacity(t *testing.T) {
	runs, err := report.Load(capacityFixture)
	require.NoError(t, err, "capacity.json loads")
	require.Len(t, runs, 1, "one capacity search is one run")
	r := runs[0]
	assert.Equal(t, "capacity", r.Label, "labelled with the file name")
	assert.Nil(t, r.Payload, "not a workload run")
	assert.Nil(t, r.Sweep, "not a sweep")
	require.NotNil(t, r.Capacity, "a capacity run")
	assert.Equal(t, capacity.ByRate, r.Capacity.By, "a search by rate")
	assert.EqualValues(t, 20, r.Capacity.Capacity, "capacity_rps is read")
	assert.Equal(t, capacity.StatusFound, r.Capacity.Status, "status is read")
	require.Len(t, r.Capacity.Probes, 9, "every probe is read")
	assert.Nil(t, r.Capacity.Probes[5].Summary.TTFTp95ms, "the probe where every request failed has a null TTFT p95")
	assert.EqualValues(t, 22, r.Capacity.Probes[8].Load, "the last probe bisected at 22 req/s")
}

// capacityOf is the data block's capacity section of run id.
func capacityOf(t *testing.T, data map[string]any, id string) map[string]any {
	t.Helper()
	for _, r := range data["runs"].([]any) {
		m := r.(map[string]any)
		if m["id"] == id {
			require.Equal(t, "capacity", m["kind"], "run %s is a capacity run", id)
			return m["capacity"].(map[string]any)
		}
	}
	require.Failf(t, "no run", "the data block has no run %s", id)
	return nil
}

func TestCapacityData(t *testing.T) {
	page := render(t, fixedRuns()...)
	_, data := dataOf(t, page)
	cd := capacityOf(t, data, "run-4")
	assert.EqualValues(t, 20, cd["capacity"], "the capacity found")
	assert.Equal(t, "req/s", cd["unit"], "a rate search is in req/s")
	assert.Equal(t, []any{
		map[string]any{"threshold": "ttft_p95_ms <= 500", "metric": "ttft_p95_ms", "op": "<=", "value": 500.0},
		map[string]any{"threshold": "tpot_p95_ms <= 50", "metric": "tpot_p95_ms", "op": "<=", "value": 50.0},
	}, cd["limits"], "the TTFT and TPOT SLOs are drawn as limits; the error rate is not on the chart")
	probes := cd["probes"].([]any)
	require.Len(t, probes, 9, "every probe, in the order run")
	var loads []any
	for _, p := range probes {
		loads = append(loads, p.(map[string]any)["load"])
	}
	assert.Equal(t, []any{1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 24.0, 20.0, 22.0}, loads, "ramp, then bisection, as run")
	p32 := probes[5].(map[string]any)
	assert.Nil(t, p32["ttft_p95_ms"], "no sample: TTFT p95 stays null, not 0")
	assert.Nil(t, p32["tpot_p95_ms"], "no sample: TPOT p95 stays null, not 0")
	assert.EqualValues(t, 0, p32["goodput"], "goodput was measured (0 req/s within the SLO)")
	assert.Equal(t, []any{"tpot_p95_ms = 53.1, want <= 50", "error_rate = 0.02, want <= 0.01"}, probes[8].(map[string]any)["failed"],
		"the failing thresholds with their measured values")

	for _, want := range []string{
		`<span class="badge pass">FOUND</span> <span class="kind">capacity</span>`,
		`Capacity <strong>20 req/s, 95% CI 20–22 req/s</strong> · found, stopped because highest passing load 20 req/s; the lowest failing was 22 req/s · SLOs ttft_p95_ms &lt;= 500, tpot_p95_ms &lt;= 50, error_rate &lt;= 0.01 · 9 probes`,
		`<h3>Capacity search</h3>`,
		`<td class="num">22</td><td><span class="status s-fail">fail</span></td>`,
		`<span class="msg">ttft_p95_ms: no samples, want &lt;= 500</span>`,
		`1 of 9 probes have no latency sample`,
	} {
		assert.Contains(t, page, want, "the capacity section shows %q", want)
	}
}

var (
	// Glyphs in the SVG: filled circles of the pass color, filled
	// pyramids (three-point paths) of the fail color.
	passGlyph = regexp.MustCompile(`<path d="M[^"]*A3\.5,3\.5[^"]*" style="fill:#2E7D32"`)
	failGlyph = regexp.MustCompile(`<path d="M[\d.]+,[\d.]+L[\d.]+,[\d.]+L[\d.]+,[\d.]+Z" style="fill:#C62828"`)
)

// capacityFigure returns the SVG of figure id.
func capacityFigure(t *testing.T, page, id string) string {
	t.Helper()
	for _, m := range figureRE.FindAllStringSubmatch(page, -1) {
		if m[1] == id {
			return m[2]
		}
	}
	require.Failf(t, "no figure", "the page has no figure %s with an SVG", id)
	return ""
}

func TestCapacityChart(t *testing.T) {
	page := render(t, capacityRun())
	svg := capacityFigure(t, page, "run-1-capacity")
	for _, want := range []string{">p95 TTFT<", ">p95 TPOT<", ">Goodput<", ">SLO &lt;= 500<", ">SLO &lt;= 50<", ">capacity 20<", ">request rate (req/s)<"} {
		assert.Contains(t, svg, want, "the capacity chart draws %q", want)
	}
	// 6 passing probes × 3 panels; failing: 24 and 22 in each panel, 32
	// only for goodput (its latencies are null, not drawn at 0).
	assert.Len(t, passGlyph.FindAllString(svg, -1), 18, "a pass marker per passing probe and panel")
	assert.Len(t, failGlyph.FindAllString(svg, -1), 7, "a fail marker per failing probe and panel with a value; null latencies are skipped")
}

// concurrencyResult is a search by concurrency whose first probe failed,
// without a goodput SLO, its TTFT limit written in seconds.
func concurrencyResult() results.Capacity {
	ms := func(v float64) *float64 { return &v }
	ths, err := results.ParseThresholds("ttft_p95_s <= 0.5", "ttft_p99_ms <= 900", "error_rate <= 0")
	if err != nil {
		panic(err)
	}
	return results.Capacity{
		CapacitySearch: results.CapacitySearch{By: capacity.ByConcurrency, SLOs: ths,
			Start: 4, Max: 64, Precision: 0.1, ProbeRequests: 50},
		Capacity: 0, Status: capacity.StatusFirstFailed,
		Reason:  "even the first probe, at 4 streams, failed: ttft_p95_s = 0.812, want <= 0.5",
		Elapsed: 12 * time.Second,
		Probes: []results.CapacityProbe{{
			Number: 1, By: capacity.ByConcurrency, Load: 4, Requests: 50, Pass: false,
			Failed: []string{"ttft_p95_s = 0.812, want <= 0.5"},
			SLOs: []results.SLOResult{{Threshold: ths[0], Measured: 0.812},
				{Threshold: ths[1], Measured: 870, Pass: true},
				{Threshold: ths[2], Measured: 0, Pass: true}},
			Summary: results.CapacityProbeStats{Requests: 50, Succeeded: 50, DurationS: 12, AchievedRate: ptr(4.17),
				TTFTp95ms: ms(812), TPOTp95ms: ms(31.5), E2ELp95ms: ms(4200)},
		}},
	}
}

func TestCapacityByConcurrency(t *testing.T) {
	res := concurrencyResult()
	b, err := json.Marshal(res)
	require.NoError(t, err, "setup: marshal the result as capacity.json")
	path := filepath.Join(t.TempDir(), "conc-search.json")
	require.NoError(t, os.WriteFile(path, b, 0o644), "setup: write capacity.json")
	runs, err := report.Load(path)
	require.NoError(t, err, "a marshaled results.Capacity loads")
	require.Len(t, runs, 1, "one run")
	assert.Equal(t, "conc-search", runs[0].Label, "labelled with the file name")

	page := render(t, runs...)
	_, data := dataOf(t, page)
	cd := capacityOf(t, data, "run-1")
	assert.Equal(t, "streams", cd["unit"], "a concurrency search is in streams")
	assert.EqualValues(t, 0, cd["capacity"], "no load passed")
	assert.Equal(t, []any{
		map[string]any{"threshold": "ttft_p95_s <= 0.5", "metric": "ttft_p95_ms", "op": "<=", "value": 500.0},
	}, cd["limits"], "a p95 TTFT limit in seconds is drawn in ms; a p99 limit does not apply to the p95 chart")
	assert.Nil(t, cd["probes"].([]any)[0].(map[string]any)["goodput"], "goodput not measured stays null")
	assert.EqualValues(t, 1, cd["probes"].([]any)[0].(map[string]any)["number"], "the first probe is probe 1, as on the CLI")
	assert.Contains(t, page, `<td class="num">1</td><td class="num">4</td>`, "and the table numbers it 1")
	assert.Contains(t, page, `<span class="badge fail">FIRST PROBE FAILED</span>`, "the badge is the search's status")
	assert.Contains(t, page, `Capacity <strong>none (no probe passed), 95% CI 0–inf streams</strong> · first_probe_failed`, "the summary gives the unit and status")
	assert.Contains(t, page, "goodput was not measured", "the page says why goodput is not drawn")
	svg := capacityFigure(t, page, "run-1-capacity")
	assert.Contains(t, svg, ">concurrency (streams)<", "the load axis is concurrency")
	assert.Contains(t, svg, ">SLO &lt;= 500<", "the limit in ms")
	assert.NotContains(t, svg, ">Goodput<", "no goodput panel without a goodput value")
	assert.NotContains(t, svg, ">capacity ", "no capacity line at 0")
}

func TestLoadBadCapacity(t *testing.T) {
	good, err := os.ReadFile(capacityFixture)
	require.NoError(t, err, "setup: read the fixture")
	dir := t.TempDir()
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"unknown by", `"by": "rate"`, `"by": "speed"`, `field "by": "speed": want "rate" or "concurrency"`},
		{"key of the other kind", `"by": "rate"`, `"by": "concurrency"`, `a search by concurrency needs "capacity_concurrency"`},
		{"probes not an array", `"probes": [`, `"probes": 3, "x": [`, `"probes" must be an array`},
		{"probe without a load", `"rate": 4,`, ``, "probe 3: neither rate nor concurrency"},
		{"probe of the other kind", `"rate": 4,`, `"concurrency": 4,`, `probes[2]: has "concurrency" in a search by rate`},
		{"zero load", `"rate": 4,`, `"rate": 0,`, `probes[2]: field "rate": 0: want a load > 0`},
		{"negative capacity", `"capacity_rps": 20`, `"capacity_rps": -1`, `field "capacity_rps": -1: want a load >= 0`},
		{"bad slo", `"tpot_p95_ms <= 50",`, `"tpot_p95 <= 50",`, `slos[1]: load: threshold "tpot_p95 <= 50": tpot is a time`},
		{"wrong type", `"pass": true`, `"pass": "yes"`, "capacity result: json: cannot unmarshal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, string(good), tc.old, "setup: the fixture has %q", tc.old)
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(good), tc.old, tc.new, 1)), 0o644), "setup")
			_, err := report.Load(path)
			require.Error(t, err, "a bad capacity file must be an error")
			assert.True(t, errors.Is(err, report.ErrBadInput), "every Load error wraps ErrBadInput: %v", err)
			assert.Contains(t, err.Error(), filepath.Base(path), "the error names the file")
			assert.Contains(t, err.Error(), tc.want, "the error says what is wrong")
		})
	}
}

func TestCapacityTimeCap(t *testing.T) {
	res := concurrencyResult()
	res.Status, res.Capacity = capacity.StatusTimeCap, 4
	res.Reason = "time cap 1m0s reached after 1 probes; capacity at least 4 streams (no probe failed yet)"
	res.Probes[0].Pass, res.Probes[0].Failed = true, nil
	run := report.FromCapacity(&res, "")
	assert.Equal(t, "capacity by concurrency", run.Label, "an empty label names the kind of search")
	page := render(t, run)
	assert.Contains(t, page, `<span class="badge warn">TIME CAP</span>`, "a time-capped search is a warning: its capacity is a lower bound")
	assert.Contains(t, page, `<p class="verdict capacity warn">Capacity <strong>4 streams, 95% CI 4–inf streams</strong> · time_cap`, "the summary is marked as a warning")
	svg := capacityFigure(t, page, "run-1-capacity")
	assert.Contains(t, svg, ">capacity 4<", "the capacity line is drawn at the load that passed")
	assert.Len(t, passGlyph.FindAllString(svg, -1), 2, "one passing probe in each of the TTFT and TPOT panels")
}
