package capacity

import (
	"fmt"
	"math"

	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// MethodFit names the interval of a fit search (Config.Fit): Fieller's
// interval of the fitted crossing (logistic.interval).
const MethodFit = "fit: quasi-binomial logistic regression of the share beyond the limit on achieved rate, over the probes within 1.3x of the crossing; Fieller interval (Student's t)"

// StatusBudgetSpent: a fit search spent its request budget before the
// fit's interval narrowed to the precision; the capacity is the fit's
// estimate, its interval wider than asked (or open at an end).
const StatusBudgetSpent = "budget_spent"

// fitOffsets are where the fit's probes go around its estimate, in turn.
var fitOffsets = []float64{0, -fitSpread, fitSpread}

// fitProbeMeasured is the measured requests of a fit search's probes:
// fitMeasured, or twice the SLOs' first look when that is more (a p99).
func fitProbeMeasured(cfg Config) int { return max(fitMeasured, 2*cfg.ProbeRequests) }

// fitSearch goes on from a ramp that bracketed the capacity between lo
// (leaning pass) and hi (not): it fits the crossing of fit.th over the
// probes' points, probes around the estimate, one fitProbeMeasured probe
// at a time, and ends when the fit's interval is within the precision
// (StatusFound) or the next probe would take the search beyond its
// request budget (StatusBudgetSpent; a fit with no crossing then leaves
// the bracket's estimate).
func fitSearch(res *results.Capacity, fit *fitter, probes *[]measuredProbe,
	run func(load float64, measured int) (results.CapacityProbe, bool, error),
	stop func(error) (results.Capacity, error), lo, hi float64, cfg Config) (results.Capacity, error) {
	measured := fitProbeMeasured(cfg)
	budget := fitBudget * measured / fitMeasured
	spent := 0
	if cfg.estimateStart {
		spent = burstRequests
	}
	for _, p := range res.Probes {
		spent += p.Summary.Sent
		if (p.Verdict == VerdictFail || p.Verdict == VerdictSaturated) && p.Load < hi {
			hi = p.Load
		}
	}
	unit := unit(cfg.By)
	var points []fitPoint
	for turn := 0; ; turn++ {
		for _, p := range (*probes)[len(points):] {
			points = append(points, fit.point(p.x, p.samples))
		}
		est, near := fitCrossing(points)
		if len(near) >= fitMinPoints && !math.IsNaN(est) {
			low, high := fitLogistic(near).interval()
			done := !math.IsNaN(low) && !math.IsNaN(high) && high-low <= cfg.Precision*low
			// The probe after this one would need about measured / 0.8
			// requests (its warm-up): stop when it cannot fit in.
			spentOut := spent+int(float64(measured)/0.8) > budget
			if done || spentOut {
				return fitResult(res, fit.th, est, low, high, len(near), done, spent, budget, cfg), nil
			}
		}
		if spent+int(float64(measured)/0.8) > budget {
			// No fit to speak of: the bracket's estimate stands.
			res.Capacity, res.Status = lo, StatusBudgetSpent
			res.Reason = fmt.Sprintf("the budget of %d requests was spent (%d sent) before the probes between %s and %s %s gave a fit with a crossing",
				budget, spent, stats.FormatLoad(lo), stats.FormatLoad(hi), unit)
			return *res, nil
		}
		if math.IsNaN(est) || est <= 0 {
			est = towards(points, lo, hi)
		}
		// Within the ramp's bracket, widened below by the fit's window (a
		// ramp probe that leaned pass may have been lucky), and below any
		// load that failed with confidence or saturated.
		load := est * (1 + fitOffsets[turn%len(fitOffsets)])
		load = math.Min(math.Max(load, lo/fitWindow), hi)
		// Three digits: two would put 9.4, 10 and 11 req/s on a grid
		// too coarse for the spread around 10.
		load = roundTo(load, 3)
		p, ok, err := run(load, measured)
		if !ok {
			return stop(err)
		}
		spent += p.Summary.Sent
		if (p.Verdict == VerdictFail || p.Verdict == VerdictSaturated) && p.Load < hi {
			hi = p.Load
		}
	}
}

// fitResult fills res with the fit's estimate est over k probes and its
// interval low–high (Fieller's; when it is open, the bracket of the
// probes decided with confidence, with the estimate kept within it),
// found when done (the interval within the precision), else spent.
func fitResult(res *results.Capacity, th results.Threshold, est, low, high float64, k int, done bool, spent, budget int, cfg Config) results.Capacity {
	unit := unit(cfg.By)
	res.Capacity, res.Measured = est, true
	res.Interval = results.Interval{Low: low, High: high, Confidence: results.DefaultConfidence, Method: MethodFit,
		N: k, EffectiveN: float64(k)}
	what := fmt.Sprintf("the fit over %d probes crosses the limit of %s at %s %s", k, th.Expr, stats.FormatLoad(est), unit)
	if math.IsNaN(low) || math.IsNaN(high) {
		// The fit's slope is not clear enough to bound the crossing:
		// the probes decided with confidence bound it instead.
		bracket := *res
		bracket.Estimate()
		res.Interval = bracket.Interval
		if l := res.Interval.Low; !math.IsNaN(l) && res.Capacity < l {
			res.Capacity = l
		}
		if h := res.Interval.High; !math.IsNaN(h) && res.Capacity > h {
			res.Capacity = h
		}
		// The headline prints the bracket (an open lower end as 0); the
		// reason only says where it came from.
		what += " (Fieller's interval did not close: the interval is the bracket of the probes decided with confidence)"
	}
	if done {
		res.Status = StatusFound
		res.Reason = what + fmt.Sprintf(", %s: within the precision %g", res.Interval.String(), cfg.Precision)
	} else {
		res.Status = StatusBudgetSpent
		res.Reason = what + fmt.Sprintf(": not decided to the precision %g when the budget of %d requests was spent (%d sent)",
			cfg.Precision, budget, spent)
	}
	return *res
}

// towards is where to probe when the points give no crossing: below them
// all (by fitWindow) when every one is beyond the limit, above them all
// when every one is within it, else between the highest within and the
// lowest beyond (geometric mean); the ramp's bracket lo–hi without points.
func towards(points []fitPoint, lo, hi float64) float64 {
	below, above := 0.0, math.Inf(1) // highest within, lowest beyond
	for _, p := range points {
		switch {
		case math.IsNaN(p.y):
		case p.y <= 0:
			below = math.Max(below, p.x)
		default:
			above = math.Min(above, p.x)
		}
	}
	switch {
	case below == 0 && math.IsInf(above, 1):
		return math.Sqrt(lo * hi)
	case below == 0:
		return above / fitWindow
	case math.IsInf(above, 1):
		return below * fitWindow
	}
	return math.Sqrt(below * above)
}
