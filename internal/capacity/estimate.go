package capacity

import (
	"math"

	"github.com/benchserve/benchserve/results"
)

// estimate fills r's Capacity, Measured and Interval from its probes:
// the interval's ends from the probes decided with confidence and the
// highest passing load (results.Capacity.Estimate), then the estimate
// interpolated by the binding threshold's margin (marginOf) between the
// highest passing probe and the next probe above it when the two are
// within the precision (a search that did not converge keeps its highest
// pass).
func estimate(r *results.Capacity) {
	r.Estimate()
	if !r.Measured {
		return
	}
	lo := r.Capacity
	var loP *results.CapacityProbe
	var above []results.CapacityProbe
	for i, p := range r.Probes {
		switch {
		case p.Load == lo && p.Leans():
			loP = &r.Probes[i]
		case p.Load > lo:
			above = append(above, p)
		}
	}
	if len(above) == 0 || loP == nil {
		return
	}
	next := above[0]
	for _, p := range above {
		if p.Load < next.Load {
			next = p
		}
	}
	if r.Precision > 0 && next.Load-lo > r.Precision*lo*(1+1e-9) {
		return // too far apart to interpolate: the highest pass stands
	}
	k := binding(next)
	g0, g1 := marginOf(*loP, k), marginOf(next, k)
	if k >= 0 && g0 <= 0 && g1 > 0 && !math.IsInf(g0, 0) && !math.IsInf(g1, 0) {
		x0, x1 := lo, next.Load
		if a0, a1 := achieved(*loP), achieved(next); r.By != ByConcurrency && a0 > 0 && a1 > a0 {
			// The queue answered the arrivals it got, not the rate
			// asked for: a probe of a few hundred Poisson arrivals is
			// easily 5% off its rate.
			x0, x1 = a0, a1
		}
		r.Capacity = x0 + (x1-x0)*(-g0)/(g1-g0)
	}
	// The interval is in the loads asked for, the interpolation in the
	// rates achieved: a probe asked for 7 may run at 8.45. The estimate
	// stays within its own interval.
	if lo := r.Interval.Low; !math.IsNaN(lo) && r.Capacity < lo {
		r.Capacity = lo
	}
	if hi := r.Interval.High; !math.IsNaN(hi) && r.Capacity > hi {
		r.Capacity = hi
	}
	if r.By == ByConcurrency {
		r.Capacity = math.Floor(r.Capacity)
	}
}

// achieved is p's achieved arrival rate over its measured requests, 0
// when unmeasured.
func achieved(p results.CapacityProbe) float64 {
	if p.Summary.AchievedRate == nil {
		return 0
	}
	return *p.Summary.AchievedRate
}

// marginOf is how far a probe's threshold k is beyond its limit,
// relative to the limit (> 0: violated): (measured − limit) / |limit|
// for an upper limit, (limit − measured) / |limit| for a lower one, the
// plain difference for a limit of 0; +Inf without a sample, NaN for k
// out of range or an == / != threshold.
func marginOf(p results.CapacityProbe, k int) float64 {
	if k < 0 || k >= len(p.SLOs) {
		return math.NaN()
	}
	o := p.SLOs[k]
	if math.IsNaN(o.Measured) {
		return math.Inf(1)
	}
	d := o.Measured - o.Value
	switch o.Op {
	case ">=", ">":
		d = -d
	case "==", "!=":
		return math.NaN()
	}
	if o.Value != 0 {
		d /= math.Abs(o.Value)
	}
	return d
}

// binding is the index of p's threshold furthest beyond its limit
// (marginOf), −1 when none has a margin.
func binding(p results.CapacityProbe) int {
	k, g := -1, math.Inf(-1)
	for i := range p.SLOs {
		if m := marginOf(p, i); m > g {
			k, g = i, m
		}
	}
	return k
}
