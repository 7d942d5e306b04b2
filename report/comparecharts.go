package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The comparison's overlay charts: the base and the candidate drawn in
// one chart, in two fixed colors, so a shift is seen where it is.

// sideColors are the base's and the candidate's colors (Okabe–Ito blue
// and orange: told apart with any color vision).
var sideColors = [2]string{seriesColors[0], seriesColors[1]}

// sideKeys is the color key under the overlay charts.
func sideKeys() []keyEntry {
	return []keyEntry{{Name: "base", Color: sideColors[0]}, {Name: "candidate", Color: sideColors[1]}}
}

// ecdfSteps are the points of an empirical CDF's staircase over sorted
// values: 0 before the first, k/n from the k-th value on.
func ecdfSteps(sorted []float64) plotter.XYs {
	n := float64(len(sorted))
	pts := make(plotter.XYs, 0, 2*len(sorted))
	for i, v := range sorted {
		pts = append(pts, plotter.XY{X: v, Y: float64(i) / n}, plotter.XY{X: v, Y: float64(i+1) / n})
	}
	return pts
}

// cdfChart draws one case's metrics side by side (TTFT, TPOT, E2EL, the
// ones measured), each with the base's and the candidate's empirical
// CDF: the fraction of requests at or below a value.
func cdfChart(caseID string, cdfs []cdfData) (string, error) {
	title := "Latency CDFs of " + caseID
	plots := make([]*plot.Plot, 0, len(cdfs))
	for _, c := range cdfs {
		unit := c.Metric
		for _, m := range cdfMetrics {
			if m.key == c.Metric {
				unit = m.unit
			}
		}
		p := newPlot(unit, "fraction of requests")
		addGrid(p, true, true)
		for i, vals := range [][]float64{c.Base, c.Candidate} {
			if len(vals) == 0 {
				continue
			}
			l, err := plotter.NewLine(ecdfSteps(vals))
			if err != nil {
				return "", fmt.Errorf("report: chart %q: %s: %w", title, c.Metric, err)
			}
			l.Color, l.Width = hexColor(sideColors[i]), vg.Points(2)
			p.Add(l)
		}
		p.Y.Min, p.Y.Max = 0, 1.02
		padRange(&p.X)
		plots = append(plots, p)
	}
	row := [][]*plot.Plot{plots}
	return renderCanvas(fullWidth, 230, title, func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Points(14), PadTop: vg.Points(4), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(8)}
		cs := plot.Align(row, tiles, dc)
		for i, p := range plots {
			p.Draw(cs[0][i])
		}
	})
}

// capacityCompareChart draws capacity searches of both sides: left, one
// row per search (base on top) with its capacity interval as a bar, its
// capacity as a diamond and its probes as points (green: passed, red:
// failed); right, every search's goodput against the load, colored by
// side. "" when no search has a probe.
func capacityCompareChart(cd *comparisonData) (string, error) {
	title := "Capacity of base and candidate"
	type search struct {
		side int
		rd   *runData
	}
	var all []search
	for i, side := range [][]*runData{cd.base, cd.cand} {
		for _, rd := range side {
			if rd.Capacity != nil && len(rd.Capacity.Probes) > 0 {
				all = append(all, search{i, rd})
			}
		}
	}
	if len(all) == 0 {
		return "", nil
	}
	xLabel := "request rate (req/s)"
	if all[0].rd.Capacity.By == byConcurrency {
		xLabel = "concurrency (streams)"
	}
	brackets := newPlot(xLabel, "")
	addGrid(brackets, true, false)
	names := make([]string, len(all))
	var pass, fail plotter.XYs
	for i, s := range all {
		c := s.rd.Capacity
		y := float64(len(all) - 1 - i)
		names[len(all)-1-i] = []string{"base", "candidate"}[s.side] + ": " + s.rd.Label
		col := hexColor(sideColors[s.side])
		lo, hi := c.Low, c.High
		if lo != nil || hi != nil {
			a, b := c.Capacity, c.Capacity
			if lo != nil {
				a = *lo
			}
			if hi != nil {
				b = *hi
			}
			bar, err := plotter.NewLine(plotter.XYs{{X: a, Y: y}, {X: b, Y: y}})
			if err != nil {
				return "", fmt.Errorf("report: chart %q: %w", title, err)
			}
			bar.Color, bar.Width = col, vg.Points(7)
			brackets.Add(bar)
		}
		for _, pr := range c.Probes {
			pt := plotter.XY{X: pr.Load, Y: y + 0.28}
			if pr.Pass {
				pass = append(pass, pt)
			} else {
				fail = append(fail, pt)
			}
		}
		if c.Measured {
			sc, err := plotter.NewScatter(plotter.XYs{{X: c.Capacity, Y: y}})
			if err != nil {
				return "", fmt.Errorf("report: chart %q: %w", title, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: inkColor, Radius: vg.Points(5), Shape: draw.BoxGlyph{}}
			brackets.Add(sc)
		}
	}
	if err := addProbeMarks(brackets, pass, fail, vg.Points(3)); err != nil {
		return "", fmt.Errorf("report: chart %q: %w", title, err)
	}
	brackets.NominalY(names...)
	brackets.Y.Min, brackets.Y.Max = -0.6, float64(len(all))-0.2
	padRange(&brackets.X)
	plots := []*plot.Plot{brackets}

	curves := newPlot(xLabel, "goodput (req/s)")
	addGrid(curves, true, true)
	drawn := false
	for _, s := range all {
		probes := slices.Clone(s.rd.Capacity.Probes)
		slices.SortStableFunc(probes, func(a, b capacityProbe) int { return cmp.Compare(a.Load, b.Load) })
		var pts plotter.XYs
		for _, pr := range probes {
			if v := pr.of(capGoodput); !math.IsNaN(v) {
				pts = append(pts, plotter.XY{X: pr.Load, Y: v})
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return "", fmt.Errorf("report: chart %q: %w", title, err)
		}
		col := hexColor(sideColors[s.side])
		l.Color, l.Width = col, vg.Points(2)
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
		curves.Add(l, sc)
		drawn = true
	}
	if drawn {
		curves.Y.Min = 0
		plots = append(plots, curves)
	}
	row := [][]*plot.Plot{plots}
	return renderCanvas(fullWidth, vg.Length(120+40*len(all)), title, func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Points(18), PadTop: vg.Points(4), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(8)}
		cs := plot.Align(row, tiles, dc)
		for i, p := range plots {
			p.Draw(cs[0][i])
		}
	})
}
