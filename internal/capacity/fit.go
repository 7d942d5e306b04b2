package capacity

import (
	"math"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// The fit (Config.Fit): near the crossing one probe of a few hundred
// requests cannot tell 10% of load apart with confidence (a queue's slow
// requests come in runs, so its effective sample is a few dozen), but the
// probes together measure one curve. A percentile is within its limit
// exactly when the share of requests beyond the limit is within the share
// allowed (5% for a p95), so the fit counts, for every probe, the measured
// requests beyond the limit, regresses those counts on the probes'
// achieved rates (a quasi-binomial logistic regression, logistic.go) over
// the probes near the crossing, and estimates the capacity where the
// fitted share reaches the share allowed, with Fieller's interval. A
// share is a mean, unbiased over a window of any length, where a short
// window's p95 reads low (a median 8% low for 200 requests at 10.2 req/s
// on the 4-slot queue), and a line through log p95 put the estimate 5-9%
// high on average; the counts' dispersion, estimated from the probes'
// scatter, carries what one short probe cannot say about its own
// variance.
const (
	// fitMeasured is the measured requests of every probe of a fit
	// search: the ramp's are looked at after half of them, decided or
	// not, the fit's run to it.
	fitMeasured = 200
	// fitBudget is the most requests a fit search sends in all (the
	// start burst included): no probe starts that could take it beyond.
	fitBudget = 1700
	// fitWindow: the regression is over the probes whose achieved rate
	// lies within this factor of the estimate (the curve bends: further
	// out a logistic is biased).
	fitWindow = 1.3
	// fitSpread is how far around the estimate the next probes go
	// (0, −, +, …), so the regression has a slope to measure.
	fitSpread = 0.15
	// fitMinPoints is the fewest probes in the window the fit stops on.
	fitMinPoints = 4
)

// fitPoint is one probe the fit uses: its achieved rate x; k of its n
// measured requests were beyond the limit, allowed the share that may be;
// y is log(share beyond / share allowed) (> 0: beyond), tau the
// autocorrelation time of its values (n / the effective n of th's
// interval).
type fitPoint struct {
	x, y         float64
	k, n         int
	allowed, tau float64
}

// measuredProbe is a probe's achieved rate and measured requests
// (arrival order), kept for the fit.
type measuredProbe struct {
	x       float64
	samples []loadgen.Sample
}

// fitter makes the fit's points for threshold th.
type fitter struct {
	th   results.Threshold
	opts summary.Options
}

// fittable reports whether the fit can follow th: a percentile (or
// median) of a distribution metric, whose share beyond the limit says
// whether it holds.
func fittable(th results.Threshold) bool {
	dist := latencyMetrics[th.Metric] || th.Metric == "gen_tps"
	pct := th.Stat == "median" || (percentile(th.Stat) && th.Stat != "p100")
	return dist && pct && th.Op != "==" && th.Op != "!="
}

// point makes a probe's fitPoint from its achieved rate and measured
// requests.
func (f fitter) point(x float64, samples []loadgen.Sample) fitPoint {
	p := fitPoint{x: x, tau: 1}
	p.k, p.n, p.allowed = f.share(samples)
	p.y = math.Log((float64(p.k) + 0.5) / float64(p.n+1) / p.allowed)
	if p.n == 0 {
		p.y = math.NaN()
	}
	if iv, ok := f.th.Interval(summary.Requests(samples, 0, f.opts), results.DefaultConfidence); ok && iv.EffectiveN > 0 {
		p.tau = float64(iv.N) / iv.EffectiveN
	}
	return p
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
// around the first crossing when it holds at least 3 points and gives a
// crossing itself (else the window's points alone are too few or too
// noisy for a slope), and returns the crossing (NaN when none) and the
// points it used.
func fitCrossing(pts []fitPoint) (float64, []fitPoint) {
	first := fitLogistic(pts).crossing()
	if near := window(pts, first); len(near) >= 3 {
		if x := fitLogistic(near).crossing(); !math.IsNaN(x) {
			return x, near
		}
	}
	return first, pts
}

// fitLoad is the load a probe's point stands at: its achieved arrival
// rate (the queue answered the arrivals it got; a probe of 200 Poisson
// arrivals is easily 7% off the rate asked for), 0 when unmeasured.
func fitLoad(p results.CapacityProbe) float64 { return achieved(p) }
