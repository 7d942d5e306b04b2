package capacity

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// The fit (Config.Fit): near the crossing one probe of a few hundred
// requests cannot tell 10% of load apart with confidence (a queue's p95
// comes in runs, so its effective sample is a few dozen), but the probes
// together measure one curve. The fit takes the binding threshold's
// margin in log space, log(measured / limit), against each probe's
// achieved rate, fits a line by least squares over the probes near the
// crossing, and estimates the capacity where the line crosses 0. Its
// interval is the delta method's over the line (the level's and the
// slope's errors), with Student's t for the points less two: the points'
// variance is the larger of the fit's residual variance and their mean
// within-probe variance (a block bootstrap of each probe's measured
// requests, blocks twice their autocorrelation time long). The residuals
// carry what a bootstrap inside one short probe misses: a window of 200
// requests near the crossing holds a few busy cycles, and probes differ
// by more than their own requests say (log p95 at 10.2 req/s on the
// 4-slot queue: sd 0.25 across probes of 200, where each probe's
// bootstrap says about half of it).
const (
	// fitMeasured is the measured requests of every probe of a fit
	// search: the ramp's are looked at after half of them, decided or
	// not, the fit's run to it.
	fitMeasured = 200
	// fitBudget is the most requests a fit search sends in all (the
	// start burst included): no probe starts that could take it beyond.
	fitBudget = 1700
	// fitWindow: the line is fitted over the probes whose achieved rate
	// lies within this factor of the estimate (the curve is convex:
	// further out a line is biased).
	fitWindow = 1.3
	// fitSpread is how far around the estimate the next probes go
	// (0, −, +, …), so the line has a slope to measure.
	fitSpread = 0.15
	// fitReplicates is the number of bootstrap replicates of a probe.
	fitReplicates = 100
	// fitMinPoints is the fewest probes in the window the fit stops on.
	fitMinPoints = 4
)

// fitPoint is one probe the fit uses: its achieved rate x, its margin y
// and the variance of y within the probe (block bootstrap).
type fitPoint struct {
	x, y, v float64
}

// measuredProbe is a probe's achieved rate and measured requests
// (arrival order), kept for the fit.
type measuredProbe struct {
	x       float64
	samples []loadgen.Sample
}

// fitter estimates the crossing of threshold th over a search's probes.
type fitter struct {
	th   results.Threshold
	opts summary.Options
	rng  *rand.Rand
}

// fittable reports whether the fit can follow th: a percentile (or
// median) of a distribution metric with a positive limit, so its margin
// has a logarithm and its samples an autocorrelation time.
func fittable(th results.Threshold) bool {
	dist := latencyMetrics[th.Metric] || th.Metric == "gen_tps"
	pct := th.Stat == "median" || (strings.HasPrefix(th.Stat, "p") && th.Stat != "p100")
	return dist && pct && th.Value > 0 && th.Op != "==" && th.Op != "!="
}

// margin is log(measured / limit) of samples (> 0: violated; the
// inverse for a lower limit), NaN when unmeasurable.
func (f fitter) margin(samples []loadgen.Sample) float64 {
	return f.marginOf(f.th.Measure(summary.Requests(samples, time.Second, f.opts)))
}

// marginOf is the margin of a measured value v.
func (f fitter) marginOf(v float64) float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return math.NaN()
	}
	m := math.Log(v / f.th.Value)
	if f.th.Op == ">" || f.th.Op == ">=" {
		m = -m
	}
	return m
}

// point makes a probe's fitPoint from its measured requests (arrival
// order): its margin, and the margin's variance over block-bootstrap
// replicates of the requests' values, the blocks twice the
// autocorrelation time of th's values (the threshold's own interval: n /
// effective n) long, at least 1, at most a fifth of the values.
func (f fitter) point(x float64, samples []loadgen.Sample) fitPoint {
	p := fitPoint{x: x, y: f.margin(samples), v: math.NaN()}
	block := 1
	if iv, ok := f.th.Interval(summary.Requests(samples, time.Second, f.opts), results.DefaultConfidence); ok && iv.EffectiveN > 0 {
		tau := float64(iv.N) / iv.EffectiveN
		block = max(1, min(int(math.Ceil(2*tau)), len(samples)/5))
	}
	// Each request's own value of th's metric (the statistic of one
	// value is the value), so a replicate is a sort, not a summary.
	var values []float64
	for _, s := range samples {
		if v := f.th.Measure(summary.Requests([]loadgen.Sample{s}, time.Second, f.opts)); !math.IsNaN(v) {
			values = append(values, v)
		}
	}
	if len(values) < 2*block {
		return p
	}
	pct := 50.0
	if f.th.Stat != "median" {
		pct, _ = strconv.ParseFloat(strings.TrimPrefix(f.th.Stat, "p"), 64)
	}
	var ys []float64
	rep := make([]float64, 0, len(values))
	for range fitReplicates {
		rep = rep[:0]
		for len(rep) < len(values) {
			start := f.rng.IntN(len(values) - block + 1)
			rep = append(rep, values[start:min(len(values), start+block)]...)
		}
		rep = rep[:len(values)]
		slices.Sort(rep)
		if y := f.marginOf(stats.Percentile(rep, pct)); !math.IsNaN(y) {
			ys = append(ys, y)
		}
	}
	if len(ys) >= 2 {
		p.v = stat.Variance(ys, nil)
	}
	return p
}

// lineFit is a least-squares line y = my + b·(x − mx) over k points,
// with its residual sum of squares and Σ(x − mx)².
type lineFit struct {
	k            int
	mx, my, b    float64
	minX, maxX   float64
	rss, sxx, vw float64
}

// fitLine fits pts whose margin is a number; vw is their mean
// within-probe variance (NaN when none has one).
func fitLine(pts []fitPoint) lineFit {
	var xs, ys, vs []float64
	for _, p := range pts {
		if !math.IsNaN(p.y) {
			xs, ys = append(xs, p.x), append(ys, p.y)
			if !math.IsNaN(p.v) {
				vs = append(vs, p.v)
			}
		}
	}
	l := lineFit{k: len(xs), mx: math.NaN(), my: math.NaN(), b: math.NaN(), vw: math.NaN()}
	if len(vs) > 0 {
		l.vw = stat.Mean(vs, nil)
	}
	if l.k < 2 {
		return l
	}
	l.mx, l.my = stat.Mean(xs, nil), stat.Mean(ys, nil)
	l.minX, l.maxX = floats.Min(xs), floats.Max(xs)
	var sxy float64
	for i := range xs {
		l.sxx += (xs[i] - l.mx) * (xs[i] - l.mx)
		sxy += (xs[i] - l.mx) * (ys[i] - l.my)
	}
	if l.sxx > 0 {
		l.b = sxy / l.sxx
		for i := range xs {
			r := ys[i] - l.my - l.b*(xs[i]-l.mx)
			l.rss += r * r
		}
	}
	return l
}

// crossing is where the line crosses 0, NaN without a rising slope (the
// margin then does not follow the load: no crossing to speak of) or
// beyond fitWindow of the points' loads (a line is no guide that far).
func (l lineFit) crossing() float64 {
	if !(l.b > 0) {
		return math.NaN()
	}
	x := l.mx - l.my/l.b
	if !(x >= l.minX/fitWindow && x <= l.maxX*fitWindow) {
		return math.NaN()
	}
	return x
}

// window is the points within fitWindow of around (all when around is
// not a positive number).
func window(pts []fitPoint, around float64) []fitPoint {
	if !(around > 0) || math.IsInf(around, 0) {
		return pts
	}
	var out []fitPoint
	for _, p := range pts {
		if p.x >= around/fitWindow && p.x <= around*fitWindow {
			out = append(out, p)
		}
	}
	return out
}

// fitCrossing fits the points twice, the second time over the window
// around the first crossing when that window holds points on both sides
// of the limit (else a line through one side extrapolates far) and gives
// a crossing itself, and returns the crossing (NaN when none) and the
// points it used.
func fitCrossing(pts []fitPoint) (float64, []fitPoint) {
	first := fitLine(pts).crossing()
	near := window(pts, first)
	below, above := false, false
	for _, p := range near {
		below, above = below || p.y < 0, above || p.y > 0
	}
	if !below || !above {
		return first, pts
	}
	if x := fitLine(near).crossing(); !math.IsNaN(x) {
		return x, near
	}
	return first, pts // the window's points alone are too noisy for a slope
}

// interval is Fieller's 95% interval of the crossing of the line over
// pts: the loads x where the fitted margin's distance from 0 is within
// Student's t (k − 2 degrees of freedom) standard errors of the fit
// there, σ²(1/k + (x − mx)²/Sxx), σ² the larger of the residual variance
// and the mean within-probe variance. Unlike the delta method it widens
// with the slope's own error; both ends are NaN (the crossing could be
// anywhere) when the slope is not above 0 by that many errors, or with
// fewer than 3 points.
func interval(pts []fitPoint) (low, high float64) {
	l := fitLine(pts)
	if l.k < 3 || math.IsNaN(l.crossing()) {
		return math.NaN(), math.NaN()
	}
	s2 := l.rss / float64(l.k-2)
	if l.vw > s2 {
		s2 = l.vw
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(l.k - 2)}.Quantile(1 - (1-results.DefaultConfidence)/2)
	// (my + b·u)² <= t²σ²(1/k + u²/Sxx), u = x − mx: a quadratic in u.
	a := l.b*l.b - t*t*s2/l.sxx
	b := 2 * l.my * l.b
	c := l.my*l.my - t*t*s2/float64(l.k)
	d := b*b - 4*a*c
	if a <= 0 || d < 0 {
		return math.NaN(), math.NaN()
	}
	return math.Max(0, l.mx+(-b-math.Sqrt(d))/(2*a)), l.mx + (-b+math.Sqrt(d))/(2*a)
}

// fitLoad is the load a probe's point stands at: its achieved arrival
// rate (the queue answered the arrivals it got; a probe of 200 Poisson
// arrivals is easily 7% off the rate asked for), 0 when unmeasured.
func fitLoad(p results.CapacityProbe) float64 { return achieved(p) }
