package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Charts are drawn by gonum.org/v1/plot and inlined as SVG. Sizes are fixed
// and nothing random goes in (jitter is a fixed pattern), so the same data
// always gives the same bytes.

// Chart widths in points, matched to the page layout (1 pt is drawn as
// 1 CSS px at the page's widest) so chart text reads at its set size:
// halfWidth for charts in the two-column grid, fullWidth for full-width ones.
const (
	halfWidth = 500
	fullWidth = 1020
)

func hexColor(s string) color.RGBA {
	v, _ := strconv.ParseUint(s[1:], 16, 32)
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// outcomeColors are shared by the charts and the page's CSS.
var outcomeColors = map[string]string{
	outcomePass:    "#2e7d32",
	outcomeFail:    "#c62828",
	outcomeTimeout: "#ef6c00",
	outcomeError:   "#6a1b9a",
	// interrupted requests are not drawn (no measurement): the color
	// only keys the data section's outcome.
	outcomeInterrupted: "#78909c",
}

// seriesColors is a color-blind-friendly palette (Okabe–Ito) for lines.
var seriesColors = []string{"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000"}

var (
	inkColor   = hexColor("#1f2933")
	gridColor  = hexColor("#e4e7eb")
	boxFill    = hexColor("#dbe7f5")
	boxStroke  = hexColor("#3e6ea8")
	waitColor  = hexColor("#9aa5b1")
	sansFont   = font.Font{Typeface: "Liberation", Variant: "Sans"}
	svgProlog  = regexp.MustCompile(`^<\?xml[^>]*>\s*(<!--[^>]*-->\s*)?`)
	svgOpenTag = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)
)

// newPlot returns an untitled plot (titles are in the figure captions) with
// the report's fonts and colors.
func newPlot(xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font = font.From(sansFont, 13)
	p.Title.TextStyle.Color = inkColor
	p.Title.Padding = vg.Points(8)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(sansFont, 11)
		ax.Label.TextStyle.Color = inkColor
		ax.Tick.Label.Font = font.From(sansFont, 10)
		ax.Tick.Label.Color = inkColor
		ax.Color = inkColor
		ax.Tick.Color = inkColor
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.X.Tick.Marker, p.Y.Tick.Marker = trimTicks{}, trimTicks{}
	p.Legend.TextStyle.Font = font.From(sansFont, 11)
	p.Legend.TextStyle.Color = inkColor
	return p
}

func addGrid(p *plot.Plot, vertical, horizontal bool) {
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridColor, gridColor
	if !vertical {
		g.Vertical.Color = nil
	}
	if !horizontal {
		g.Horizontal.Color = nil
	}
	p.Add(g)
}

// renderSVG draws p at w×h points and returns the SVG element without the
// XML prolog, sized by its viewBox so the page can scale it.
func renderSVG(p *plot.Plot, w, h vg.Length, label string) (string, error) {
	return renderCanvas(w, h, label, func(dc draw.Canvas) { p.Draw(dc) })
}

// renderCanvas is renderSVG for a drawing of several plots: paint draws
// on the w×h canvas.
func renderCanvas(w, h vg.Length, label string, paint func(draw.Canvas)) (string, error) {
	c := vgsvg.New(w, h)
	paint(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("report: chart %q: %w", label, err)
	}
	s := svgProlog.ReplaceAllString(buf.String(), "")
	// Replace the fixed pt size by a responsive one; viewBox keeps the
	// aspect ratio. The label is escaped for an attribute by html.EscapeString
	// semantics via strconv-free replacement below.
	s = svgOpenTag.ReplaceAllLiteralString(s, fmt.Sprintf(`<svg class="plot" role="img" aria-label="%s" width="%g" height="%g"`,
		attrEscape(label), w.Points(), h.Points()))
	return s, nil
}

func attrEscape(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jitter spreads repeated samples of one case across its row: a fixed
// pattern, so output is reproducible.
func jitter(k int) float64 {
	pattern := []float64{0, -0.16, 0.16, -0.08, 0.08, -0.24, 0.24, -0.04, 0.04, -0.2, 0.2, -0.12, 0.12}
	return pattern[k%len(pattern)]
}

// distributionChart draws one metric of every case as a horizontal box
// plot with the individual requests as points colored by outcome. Cases
// are rows, the first case on top. Errored requests are left out.
func distributionChart(rd *runData, metric, title, unit string) (string, error) {
	n := len(rd.Cases)
	p := newPlot(unit, "")
	addGrid(p, true, false)
	names := make([]string, n)
	var pts plotter.XYs
	var colors []color.Color
	for i, cs := range rd.Cases {
		row := float64(n - 1 - i)
		names[n-1-i] = cs.CaseID
		var vals plotter.Values
		for _, q := range cs.Requests {
			if unmeasured(q.Outcome) {
				continue
			}
			v := metricOf(q, metric)
			if math.IsNaN(v) {
				continue // not measured (a burst or a single chunk)
			}
			vals = append(vals, v)
			pts = append(pts, plotter.XY{X: v, Y: row + jitter(len(vals)-1)})
			colors = append(colors, hexColor(outcomeColors[q.Outcome]))
		}
		if len(vals) == 0 {
			continue
		}
		b, err := plotter.NewBoxPlot(vg.Points(18), row, vals)
		if err != nil {
			return "", fmt.Errorf("report: chart %q: case %q: %w", title, cs.CaseID, err)
		}
		b.Horizontal = true
		b.FillColor = boxFill
		b.BoxStyle.Color, b.WhiskerStyle.Color = boxStroke, boxStroke
		b.MedianStyle.Color = boxStroke
		b.MedianStyle.Width = vg.Points(2)
		b.GlyphStyle.Radius = 0 // the points below show every sample, outliers too
		p.Add(b)
	}
	if len(pts) > 0 {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return "", fmt.Errorf("report: chart %q: %w", title, err)
		}
		s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			return draw.GlyphStyle{Color: colors[i], Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
		}
		p.Add(s)
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	padRange(&p.X)
	if len(pts) == 0 {
		title += " (no measured samples)"
	}
	return renderSVG(p, halfWidth, vg.Length(50+26*max(n, 2)), title)
}

func metricOf(q requestData, metric string) float64 {
	switch metric {
	case "ttft":
		return q.TTFTms
	case "tpot":
		return orNaN(q.TPOTms)
	case "gen_tps":
		return orNaN(q.GenTPS)
	}
	return q.E2ELms
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// maxLabelledRows is the most timeline rows that get a case label each.
const maxLabelledRows = 40

// timelineChart draws one row per request: a thin grey line from its
// start to its first token, a thick line colored by outcome from the
// first token to its end. The first request is on top.
func timelineChart(rd *runData) (string, error) {
	n := len(rd.Timeline)
	title := "Request timeline"
	p := newPlot("ms since the first request started", "")
	addGrid(p, true, false)
	h := vg.Length(50 + 18*max(n, 2))
	if h > 900 {
		h = 900
	}
	rowPts := float64(h-50) / float64(max(n, 1))
	thick := vg.Points(math.Max(1, math.Min(8, rowPts*0.55)))
	names := make([]string, n)
	for i, e := range rd.Timeline {
		row := float64(n - 1 - i)
		names[n-1-i] = fmt.Sprintf("%s #%d", e.CaseID, e.Repetition)
		gen := e.StartMS
		if e.FirstTokenMS != nil {
			gen = *e.FirstTokenMS
			wait, err := plotter.NewLine(plotter.XYs{{X: e.StartMS, Y: row}, {X: gen, Y: row}})
			if err != nil {
				return "", fmt.Errorf("report: chart %q: %w", title, err)
			}
			wait.Color, wait.Width = waitColor, vg.Points(math.Max(1, float64(thick)/3))
			p.Add(wait)
		}
		line, err := plotter.NewLine(plotter.XYs{{X: gen, Y: row}, {X: e.EndMS, Y: row}})
		if err != nil {
			return "", fmt.Errorf("report: chart %q: %w", title, err)
		}
		line.Color, line.Width = hexColor(outcomeColors[e.Outcome]), thick
		p.Add(line)
		// A start tick, so zero-length (errored) requests still show.
		tick, err := plotter.NewScatter(plotter.XYs{{X: e.StartMS, Y: row}})
		if err != nil {
			return "", fmt.Errorf("report: chart %q: %w", title, err)
		}
		tick.GlyphStyle = draw.GlyphStyle{Color: hexColor(outcomeColors[e.Outcome]), Radius: vg.Points(math.Min(3, math.Max(1, rowPts*0.3))), Shape: draw.CircleGlyph{}}
		p.Add(tick)
	}
	if n <= maxLabelledRows {
		p.NominalY(names...)
	} else {
		p.Y.Label.Text = "request (first on top)"
		p.Y.Tick.Marker = plot.ConstantTicks{}
	}
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
	p.X.Min = 0
	p.X.Max *= 1.02
	return renderSVG(p, fullWidth, h, title)
}

// sweepChart draws one line per prompt set of y against concurrency
// (log2-spaced when the concurrencies span a factor of 8 or more).
func sweepChart(rd *runData, metric, title, yLabel string) (string, error) {
	p := newPlot("concurrency", yLabel)
	addGrid(p, true, true)
	var sets []string
	bySet := map[string]plotter.XYs{}
	minC, maxC := math.Inf(1), 0.0
	for _, pt := range rd.Sweep {
		if _, ok := bySet[pt.PromptSet]; !ok {
			sets = append(sets, pt.PromptSet)
		}
		y := pt.ThroughputTPS
		if metric == "ttft" {
			y = pt.TTFTms
		}
		c := float64(max(pt.Concurrency, 1))
		minC, maxC = math.Min(minC, c), math.Max(maxC, c)
		bySet[pt.PromptSet] = append(bySet[pt.PromptSet], plotter.XY{X: c, Y: y})
	}
	var ticks plot.ConstantTicks
	seen := map[float64]bool{}
	for _, pt := range rd.Sweep {
		c := float64(max(pt.Concurrency, 1))
		if !seen[c] {
			seen[c] = true
			ticks = append(ticks, plot.Tick{Value: c, Label: strconv.Itoa(int(c))})
		}
	}
	if maxC >= 8*minC {
		p.X.Scale = plot.LogScale{}
	}
	p.X.Tick.Marker = ticks
	for i, set := range sets {
		l, s, err := plotter.NewLinePoints(bySet[set])
		if err != nil {
			return "", fmt.Errorf("report: chart %q: prompt set %q: %w", title, set, err)
		}
		col := hexColor(seriesColors[i%len(seriesColors)])
		l.Color, l.Width = col, vg.Points(2)
		s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(l, s)
		p.Legend.Add(set, l, s)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(8)
	p.Y.Min = 0
	if maxC == minC {
		p.X.Min, p.X.Max = minC-1, maxC+1
	}
	p.Y.Max *= 1.15 // headroom for the legend
	return renderSVG(p, halfWidth, 300, title)
}

// padRange widens an axis fitted to the data by 8% of its span on each
// side (at least 5% of the value, or 1, when every value is the same), so
// distributions fill the chart without touching its edges; it never goes
// below 0 for data that is all non-negative.
func padRange(ax *plot.Axis) {
	lo, hi := ax.Min, ax.Max
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo > hi {
		// Nothing was plotted (every value null: bursts, failures): an
		// empty 0–1 axis. A NaN range would make gonum's tick search
		// loop forever.
		ax.Min, ax.Max = 0, 1
		return
	}
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(hi)*0.05, 1) / 0.08
	}
	pad := span * 0.08
	nonNeg := lo >= 0
	ax.Min, ax.Max = lo-pad, hi+pad
	if nonNeg && ax.Min < 0 {
		ax.Min = 0
	}
}

// trimTicks are gonum's default ticks with trailing zeros cut from the
// labels ("125.00" → "125", "0.50" → "0.5"), and labels that would read
// alike over a narrow range ("1.2 1.2 1.2" for 1.19–1.21) written with
// as many decimals as it takes to tell them apart.
type trimTicks struct{}

// Ticks implements plot.Ticker.
func (trimTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	distinctLabels(ts)
	for i, t := range ts {
		if strings.Contains(t.Label, ".") && !strings.ContainsAny(t.Label, "eE") {
			ts[i].Label = strings.TrimRight(strings.TrimRight(t.Label, "0"), ".")
		}
	}
	return ts
}

// distinctLabels rewrites the labels of ts's labelled ticks with the
// fewest decimals (up to 12) that make them all differ, when gonum's
// labels repeat.
func distinctLabels(ts []plot.Tick) {
	seen := map[string]bool{}
	repeated := false
	for _, t := range ts {
		if t.Label == "" {
			continue
		}
		repeated = repeated || seen[t.Label]
		seen[t.Label] = true
	}
	if !repeated {
		return
	}
	for d := 0; d <= 12; d++ {
		labels := map[string]bool{}
		ok := true
		for _, t := range ts {
			if t.Label == "" {
				continue
			}
			l := strconv.FormatFloat(t.Value, 'f', d, 64)
			ok = ok && !labels[l]
			labels[l] = true
		}
		if ok {
			for i, t := range ts {
				if t.Label != "" {
					ts[i].Label = strconv.FormatFloat(t.Value, 'f', d, 64)
				}
			}
			return
		}
	}
}
