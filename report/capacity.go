package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchserve/benchserve/results"
)

// FromCapacity wraps a capacity search's result (benchtest.SearchCapacity,
// or capacity.json read with results.Capacity.UnmarshalJSON) as a Run. An
// empty label becomes "capacity by <rate|concurrency>". r is not copied;
// do not change it until the report is written.
func FromCapacity(r *results.Capacity, label string) Run {
	if label == "" {
		label = "capacity by " + byOf(r)
	}
	return Run{Label: label, Capacity: r}
}

// byOf is r's By, "rate" when unset (as results.Capacity.MarshalJSON
// does).
func byOf(r *results.Capacity) string {
	if r == nil || r.By == "" {
		return byRate
	}
	return r.By
}

// The values of results.CapacitySearch.By.
const (
	byRate        = "rate"
	byConcurrency = "concurrency"
)

// unitOf is the unit of a load searched by by: "req/s" or "streams".
func unitOf(by string) string {
	if by == byConcurrency {
		return "streams"
	}
	return "req/s"
}

// capacityData is a capacity search as the page shows it: the summary,
// the SLO limits drawn on the chart and every probe in the order run.
type capacityData struct {
	// By is "rate" or "concurrency"; Unit "req/s" or "streams" (the unit
	// of Capacity and of every probe's Load).
	By       string  `json:"by"`
	Unit     string  `json:"unit"`
	Capacity float64 `json:"capacity"`
	// Measured is false when no probe passed (Capacity is then 0 and
	// means nothing); Headline is the capacity with its interval
	// ("10.3 req/s, 95% CI 10–11 req/s"); Low and High are the interval's
	// ends (nil: not established) and Method how it was found.
	Measured bool     `json:"measured"`
	Headline string   `json:"headline"`
	Low      *float64 `json:"low"`
	High     *float64 `json:"high"`
	Method   string   `json:"method"`
	// Status and Reason are results.Capacity's: how the search ended.
	Status string `json:"status"`
	Reason string `json:"reason"`
	// SLOs are the thresholds as written, the error-rate threshold last.
	SLOs         []string `json:"slos"`
	MaxErrorRate float64  `json:"max_error_rate"`
	// Start, Max and Precision echo the search's configuration;
	// ElapsedS is its wall time in seconds.
	Start     float64 `json:"start"`
	Max       float64 `json:"max"`
	Precision float64 `json:"precision"`
	ElapsedS  float64 `json:"elapsed_s"`
	// Limits are the SLOs drawn as horizontal lines on the chart.
	Limits []capacityLimit `json:"limits"`
	Probes []capacityProbe `json:"probes"`
}

// capacityLimit is an SLO threshold on a charted metric: Metric is
// "ttft_p95_ms", "tpot_p95_ms" (Value in ms, whatever unit the threshold
// was written in) or "goodput" (req/s).
type capacityLimit struct {
	Threshold string  `json:"threshold"`
	Metric    string  `json:"metric"`
	Op        string  `json:"op"`
	Value     float64 `json:"value"`
}

// capacityProbe is one probe: the load it ran (Unit), its verdict, the
// thresholds it failed with their measured values, and the statistics the
// chart and table show; a statistic with no sample behind it is nil.
type capacityProbe struct {
	// Number counts probes from 1, as the CLI's probe lines do; Verdict
	// is pass, fail, inconclusive or saturated; Measured and Warmup split
	// its complete requests.
	Number       int      `json:"number"`
	Load         float64  `json:"load"`
	Pass         bool     `json:"pass"`
	Verdict      string   `json:"verdict"`
	Failed       []string `json:"failed"`
	Requests     int      `json:"requests"`
	Measured     int      `json:"measured"`
	Warmup       int      `json:"warmup"`
	Succeeded    int      `json:"succeeded"`
	AchievedRate *float64 `json:"achieved_rate"`
	ErrorRate    float64  `json:"error_rate"`
	TTFTp95ms    *float64 `json:"ttft_p95_ms"`
	// TTFTp95CI is the TTFT p95's 95% interval as text ("" without one).
	TTFTp95CI string   `json:"ttft_p95_ci"`
	TPOTp95ms *float64 `json:"tpot_p95_ms"`
	E2ELp95ms *float64 `json:"e2el_p95_ms"`
	Goodput   *float64 `json:"goodput"`
}

// Charted metrics of a probe: the keys of capacityLimit.Metric.
const (
	capTTFT    = "ttft_p95_ms"
	capTPOT    = "tpot_p95_ms"
	capGoodput = "goodput"
)

// of is the probe's value of a charted metric, NaN when it is null.
func (p capacityProbe) of(metric string) float64 {
	switch metric {
	case capTTFT:
		return orNaN(p.TTFTp95ms)
	case capTPOT:
		return orNaN(p.TPOTp95ms)
	}
	return orNaN(p.Goodput)
}

// roundPtr rounds a statistic to 3 places; nil for nil, NaN or infinity.
func roundPtr(v *float64) *float64 {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return nil
	}
	r := round(*v, 3)
	return &r
}

// chartLimit is the SLO threshold t as a limit on one of the charted
// metrics (p95 TTFT or TPOT in any time unit, converted to ms, or
// goodput), false for any other threshold (error rate, other statistics,
// == and !=) or one that does not parse.
func chartLimit(expr string) (capacityLimit, bool) {
	t, err := results.ParseThreshold(expr)
	if err != nil || t.Op == "==" || t.Op == "!=" {
		return capacityLimit{}, false
	}
	l := capacityLimit{Threshold: expr, Op: t.Op, Value: t.Value}
	switch {
	case t.Metric == "goodput":
		l.Metric = capGoodput
		return l, true
	case (t.Metric == "ttft" || t.Metric == "tpot") && t.Stat == "p95":
		l.Metric = t.Metric + "_p95_ms"
		switch t.Unit {
		case "s":
			l.Value *= 1000
		case "us":
			l.Value /= 1000
		}
		l.Value = round(l.Value, 6)
		return l, true
	}
	return capacityLimit{}, false
}

func capacityRunData(id string, r Run) *runData {
	res := r.Capacity
	if res.Interval.Method == "" {
		// Put together without Search: derive the capacity and its
		// interval from the probes.
		cp := *res
		cp.Estimate()
		res = &cp
	}
	by := byOf(res)
	cd := &capacityData{By: by, Unit: unitOf(by), Capacity: res.Capacity, Measured: res.Measured,
		Headline: res.Headline(), Low: roundPtr(finitePtr(res.Interval.Low)), High: roundPtr(finitePtr(res.Interval.High)),
		Method: res.Interval.Method, Status: string(res.Status),
		Reason: res.Reason, SLOs: exprsOf(res.SLOs), MaxErrorRate: res.MaxErrorRate, Start: res.Start, Max: res.Max,
		Precision: res.Precision, ElapsedS: round(res.Elapsed.Seconds(), 3),
		Limits: []capacityLimit{}, Probes: []capacityProbe{}}
	if cd.SLOs == nil {
		cd.SLOs = []string{}
	}
	for _, s := range cd.SLOs {
		if l, ok := chartLimit(s); ok {
			cd.Limits = append(cd.Limits, l)
		}
	}
	for _, p := range res.Probes {
		s := p.Summary
		failed := p.Failed
		if failed == nil {
			failed = []string{}
		}
		ci := ""
		if s.TTFTp95CI != nil && s.TTFTp95ms != nil {
			ci = intervalText(s.TTFTp95CI)
		}
		cd.Probes = append(cd.Probes, capacityProbe{Number: p.Number, Load: p.Load, Pass: p.Pass, Verdict: string(p.Verdict),
			Failed: failed, Requests: s.Sent, Measured: s.Measured, Warmup: s.Warmup, TTFTp95CI: ci,
			Succeeded: s.Succeeded, AchievedRate: roundPtr(s.AchievedRate),
			ErrorRate: round(s.ErrorRate, 4), TTFTp95ms: roundPtr(s.TTFTp95ms), TPOTp95ms: roundPtr(s.TPOTp95ms),
			E2ELp95ms: roundPtr(s.E2ELp95ms), Goodput: roundPtr(s.Goodput)})
	}
	rd := &runData{ID: id, Label: r.Label, Kind: "capacity", Capacity: cd}
	rd.Notes = capacityNotes(cd)
	return rd
}

// finitePtr is &v, nil for NaN.
func finitePtr(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// intervalText is "95% CI 140.1–171.3", an end not bounded written inf.
func intervalText(iv *results.Interval) string { return iv.String() }

// exprsOf is the thresholds as written, [] for none.
func exprsOf(ths []results.Threshold) []string {
	out := []string{}
	for _, t := range ths {
		out = append(out, t.Expr)
	}
	return out
}

// capacityNotes says what the chart leaves out: probes without latency
// samples and a goodput that was not measured.
func capacityNotes(cd *capacityData) []string {
	var notes []string
	noLatency, noGoodput := 0, 0
	for _, p := range cd.Probes {
		if p.TTFTp95ms == nil && p.TPOTp95ms == nil {
			noLatency++
		}
		if p.Goodput == nil {
			noGoodput++
		}
	}
	if noLatency > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d probes have no latency sample (no request succeeded): their p95 TTFT and TPOT are null and not drawn", noLatency, len(cd.Probes)))
	}
	if len(cd.Probes) > 0 && noGoodput == len(cd.Probes) {
		notes = append(notes, "goodput was not measured (the search had no goodput SLO): not drawn")
	}
	return notes
}

// passed says whether the search reached an answer it stands by:
// the capacity was found within the precision or is at least the maximum.
func (cd *capacityData) passed() bool {
	return cd.Status == "found" || cd.Status == "max_reached"
}

// loadCapacity reads capacity.json (results.Capacity.MarshalJSON) as one
// Run labelled base, checking what the report relies on: the search's
// kind, its capacity key, every probe's load and the SLO expressions.
func loadCapacity(path, base string, data []byte, keys map[string]json.RawMessage) ([]Run, error) {
	if raw, ok := keys["probes"]; !ok || !strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
		return nil, badInput(path, `capacity result: "probes" must be an array of probes`)
	}
	var res results.Capacity
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, badInput(path, "capacity result: %v", err)
	}
	by := res.By
	if by != byRate && by != byConcurrency {
		return nil, badInput(path, `capacity result: field "by": %q: want "rate" or "concurrency"`, by)
	}
	key := "capacity_rps"
	if by == byConcurrency {
		key = "capacity_concurrency"
	}
	if _, ok := keys[key]; !ok {
		return nil, badInput(path, `capacity result: a search by %s needs "%s"`, by, key)
	}
	if res.Measured && !(res.Capacity >= 0) {
		return nil, badInput(path, `capacity result: field "%s": %v: want a load >= 0`, key, res.Capacity)
	}
	for i, p := range res.Probes {
		if p.By != by {
			return nil, badInput(path, `capacity result: probes[%d]: has "%s" in a search by %s`, i, p.By, by)
		}
		if !(p.Load > 0) {
			return nil, badInput(path, `capacity result: probes[%d]: field "%s": %v: want a load > 0`, i, p.By, p.Load)
		}
	}
	for i, s := range res.SLOs {
		if _, err := results.ParseThreshold(s.Expr); err != nil {
			return nil, badInput(path, "capacity result: slos[%d]: %v", i, err)
		}
	}
	return []Run{FromCapacity(&res, base)}, nil
}

// fmtLoad prints a load with up to 3 decimals, trailing zeros dropped
// (as capacity prints them): 20, 0.5, 12.125.
func fmtLoad(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// capacityPanel is one panel of the capacity chart.
type capacityPanel struct{ metric, title, yLabel string }

var capacityPanels = []capacityPanel{
	{capTTFT, "p95 TTFT", "TTFT p95 (ms)"},
	{capTPOT, "p95 TPOT", "TPOT p95 (ms)"},
	{capGoodput, "Goodput", "goodput (req/s)"},
}

// Colors of the capacity chart: the metric's line, the SLO limits and the
// capacity found.
var (
	capLineColor  = hexColor("#616e7c")
	capLimitColor = hexColor(outcomeColors[outcomeFail])
	capFoundColor = hexColor("#0b5cad")
)

// capacityChart draws a capacity search in up to three stacked panels
// sharing the load axis (log2-spaced when the loads span a factor of 8): p95 TTFT, p95 TPOT (ms) and goodput
// (req/s) of every probe against its load, a line through the probes in
// load order (broken where a statistic is null; null points are not
// drawn), a marker per probe (green circle: passed every threshold; red
// pyramid: failed one), a dashed horizontal line per SLO limit on that
// metric and a vertical line at the capacity found (none when it is 0).
// Panels with no value at all (goodput of a search without a goodput SLO)
// are left out; "" when no panel is left.
func capacityChart(cd *capacityData) (string, error) {
	title := "Capacity search"
	probes := slices.Clone(cd.Probes)
	slices.SortStableFunc(probes, func(a, b capacityProbe) int { return cmp.Compare(a.Load, b.Load) })
	var panels []capacityPanel
	for _, pn := range capacityPanels {
		if slices.ContainsFunc(probes, func(p capacityProbe) bool { return !math.IsNaN(p.of(pn.metric)) }) {
			panels = append(panels, pn)
		}
	}
	if len(panels) == 0 {
		return "", nil
	}
	xLabel := "request rate (req/s)"
	if cd.By == byConcurrency {
		xLabel = "concurrency (streams)"
	}
	lo, hi := probes[0].Load, probes[len(probes)-1].Load
	if cd.Measured && cd.Capacity > 0 {
		lo, hi = math.Min(lo, cd.Capacity), math.Max(hi, cd.Capacity)
	}
	logX := hi >= 8*lo
	var xMin, xMax float64
	var ticks plot.Ticker = trimTicks{}
	if logX {
		xMin, xMax = lo/1.25, hi*1.25
		var ct plot.ConstantTicks
		for e := math.Floor(math.Log2(lo)); e <= math.Ceil(math.Log2(hi)); e++ {
			v := math.Exp2(e)
			if v >= xMin && v <= xMax {
				ct = append(ct, plot.Tick{Value: v, Label: fmtLoad(v)})
			}
		}
		ticks = ct
	} else {
		span := hi - lo
		if span <= 0 {
			span = math.Max(hi*0.5, 1)
		}
		xMin, xMax = math.Max(lo-0.08*span, 0), hi+0.08*span
	}
	plots := make([]*plot.Plot, 0, len(panels))
	for _, pn := range panels {
		p := newPlot(xLabel, pn.yLabel)
		p.Title.Text = pn.title
		addGrid(p, true, true)
		if logX {
			p.X.Scale = plot.LogScale{}
		}
		p.X.Tick.Marker = ticks
		p.X.Min, p.X.Max = xMin, xMax
		yMax := 0.0
		var seg, pass, fail plotter.XYs
		flush := func() error {
			if len(seg) >= 2 {
				l, err := plotter.NewLine(seg)
				if err != nil {
					return err
				}
				l.Color, l.Width = capLineColor, vg.Points(1.5)
				p.Add(l)
			}
			seg = nil
			return nil
		}
		for _, pr := range probes {
			v := pr.of(pn.metric)
			if math.IsNaN(v) {
				if err := flush(); err != nil {
					return "", fmt.Errorf("report: chart %q: %w", title, err)
				}
				continue
			}
			yMax = math.Max(yMax, v)
			pt := plotter.XY{X: pr.Load, Y: v}
			seg = append(seg, pt)
			if pr.Pass {
				pass = append(pass, pt)
			} else {
				fail = append(fail, pt)
			}
		}
		if err := flush(); err != nil {
			return "", fmt.Errorf("report: chart %q: %w", title, err)
		}
		var limits []capacityLimit
		for _, l := range cd.Limits {
			if l.Metric == pn.metric {
				limits = append(limits, l)
				yMax = math.Max(yMax, l.Value)
			}
		}
		if yMax <= 0 {
			yMax = 1
		}
		p.Y.Min, p.Y.Max = 0, yMax*1.15
		for _, l := range limits {
			line, err := plotter.NewLine(plotter.XYs{{X: xMin, Y: l.Value}, {X: xMax, Y: l.Value}})
			if err != nil {
				return "", fmt.Errorf("report: chart %q: SLO %q: %w", title, l.Threshold, err)
			}
			line.Color, line.Width, line.Dashes = capLimitColor, vg.Points(1.2), []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(line)
			if err := addText(p, xMin, l.Value, "SLO "+l.Op+" "+fmtLoad(l.Value), capLimitColor, text.XLeft, vg.Point{X: 4, Y: 2}); err != nil {
				return "", fmt.Errorf("report: chart %q: %w", title, err)
			}
		}
		if cd.Measured && cd.Capacity > 0 {
			line, err := plotter.NewLine(plotter.XYs{{X: cd.Capacity, Y: 0}, {X: cd.Capacity, Y: p.Y.Max}})
			if err != nil {
				return "", fmt.Errorf("report: chart %q: %w", title, err)
			}
			line.Color, line.Width = capFoundColor, vg.Points(1.5)
			p.Add(line)
			if err := addText(p, cd.Capacity, p.Y.Max, "capacity "+fmtLoad(cd.Capacity), capFoundColor, text.XRight, vg.Point{X: -4, Y: -14}); err != nil {
				return "", fmt.Errorf("report: chart %q: %w", title, err)
			}
		}
		if err := addProbeMarks(p, pass, fail, vg.Points(3.5)); err != nil {
			return "", fmt.Errorf("report: chart %q: %w", title, err)
		}
		plots = append(plots, p)
	}
	// Stacked, so the load axis gets the page's width: the bisection's
	// probes lie close together. Only the bottom panel names the axis.
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
		if i < len(plots)-1 {
			p.X.Label.Text = ""
		}
	}
	h := vg.Length(20 + 190*len(plots))
	return renderCanvas(fullWidth, h, title, func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(10), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(8)}
		cs := plot.Align(rows, tiles, dc)
		for i, p := range plots {
			p.Draw(cs[i][0])
		}
	})
}

// addText writes s at (x, y) in data coordinates, offset by off points,
// in the report's font and the given color.
func addText(p *plot.Plot, x, y float64, s string, c color.Color, align text.XAlignment, off vg.Point) error {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{s}})
	if err != nil {
		return err
	}
	l.TextStyle[0].Font = font.From(sansFont, 10)
	l.TextStyle[0].Color = c
	l.TextStyle[0].XAlign = align
	l.Offset = off
	p.Add(l)
	return nil
}

// addProbeMarks marks a capacity search's probes on p: those that passed
// as circles, those that failed as triangles, in the outcome colors.
func addProbeMarks(p *plot.Plot, pass, fail plotter.XYs, radius vg.Length) error {
	for _, m := range []struct {
		pts   plotter.XYs
		color string
		shape draw.GlyphDrawer
	}{{pass, outcomeColors[outcomePass], draw.CircleGlyph{}}, {fail, outcomeColors[outcomeFail], draw.PyramidGlyph{}}} {
		if len(m.pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(m.pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: hexColor(m.color), Radius: radius, Shape: m.shape}
		p.Add(sc)
	}
	return nil
}
