package capacity

import (
	"math"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/summary"
)

// share counts a probe's measured requests beyond th's limit: k of n
// (above an upper limit, below a lower one), and the share allowed
// beyond it (1 − p/100 for an upper limit on pN, p/100 for a lower one):
// a percentile is within its limit exactly when the share beyond is
// within the share allowed.
func (f fitter) share(samples []loadgen.Sample) (k, n int, allowed float64) {
	pct := 50.0
	if f.th.Stat != "median" {
		pct, _ = strconv.ParseFloat(strings.TrimPrefix(f.th.Stat, "p"), 64)
	}
	upper := f.th.Op == "<" || f.th.Op == "<="
	for _, s := range samples {
		// The statistic of one request is its value.
		v := f.th.Measure(summary.Requests([]loadgen.Sample{s}, 0, f.opts))
		if math.IsNaN(v) {
			continue
		}
		n++
		if (upper && v > f.th.Value) || (!upper && v < f.th.Value) {
			k++
		}
	}
	allowed = 1 - pct/100
	if !upper {
		allowed = pct / 100
	}
	return k, n, allowed
}

// logistic is a quasi-binomial logistic regression of the shares k/n
// beyond the limit on load x: logit(share) = a + b·(x − mx), by
// iteratively reweighted least squares, with the coefficients'
// covariance scaled by the dispersion φ (Pearson's χ² over the points
// less two, at least the points' mean autocorrelation time: a queue's
// slow requests come in runs, so k varies more than a binomial's).
type logistic struct {
	m           int
	mx, a, b    float64
	va, vb, cab float64
	minX, maxX  float64
	allowed     float64
}

// fitLogistic fits pts; b is NaN when it does not converge or has fewer
// than two distinct loads.
func fitLogistic(pts []fitPoint) logistic {
	l := logistic{m: len(pts), a: math.NaN(), b: math.NaN()}
	if len(pts) < 2 {
		return l
	}
	l.minX, l.maxX = math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		l.mx += p.x / float64(len(pts))
		l.minX, l.maxX = math.Min(l.minX, p.x), math.Max(l.maxX, p.x)
		l.allowed = p.allowed
	}
	// Start from the empirical logits' least squares.
	a, b := 0.0, 0.0
	for iter := 0; iter < 50; iter++ {
		var sw, swx, swxx, swz, swxz float64
		for _, p := range pts {
			x := p.x - l.mx
			eta := a + b*x
			if iter == 0 {
				eta = math.Log((float64(p.k) + 0.5) / (float64(p.n-p.k) + 0.5))
			}
			pr := 1 / (1 + math.Exp(-eta))
			w := float64(p.n) * pr * (1 - pr)
			if w <= 0 {
				continue
			}
			z := eta + (float64(p.k)-float64(p.n)*pr)/w
			sw, swx, swxx, swz, swxz = sw+w, swx+w*x, swxx+w*x*x, swz+w*z, swxz+w*x*z
		}
		det := sw*swxx - swx*swx
		if !(det > 0) {
			return l
		}
		na, nb := (swxx*swz-swx*swxz)/det, (sw*swxz-swx*swz)/det
		done := math.Abs(na-a) < 1e-9 && math.Abs(nb-b) < 1e-9
		a, b = na, nb
		if done {
			break
		}
	}
	// Covariance (XᵀWX)⁻¹ at the fit, times the dispersion.
	var sw, swx, swxx, chi2, tau float64
	for _, p := range pts {
		x := p.x - l.mx
		pr := 1 / (1 + math.Exp(-(a + b*x)))
		w := float64(p.n) * pr * (1 - pr)
		sw, swx, swxx = sw+w, swx+w*x, swxx+w*x*x
		if w > 0 {
			r := float64(p.k) - float64(p.n)*pr
			chi2 += r * r / w
		}
		tau += p.tau / float64(len(pts))
	}
	det := sw*swxx - swx*swx
	if !(det > 0) || math.IsNaN(a) || math.IsNaN(b) {
		return l
	}
	phi := 1.0
	if l.m > 2 {
		phi = chi2 / float64(l.m-2)
	}
	phi = math.Max(phi, math.Max(tau, 1))
	l.a, l.b = a, b
	l.va, l.vb, l.cab = phi*swxx/det, phi*sw/det, -phi*swx/det
	return l
}

// crossing is the load where the fitted share reaches the share
// allowed, NaN without a rising slope or beyond fitWindow of the
// points' loads.
func (l logistic) crossing() float64 {
	if !(l.b > 0) {
		return math.NaN()
	}
	c := math.Log(l.allowed / (1 - l.allowed))
	x := l.mx + (c-l.a)/l.b
	if !(x >= l.minX/fitWindow && x <= l.maxX*fitWindow) {
		return math.NaN()
	}
	return x
}

// interval is Fieller's 95% interval of the crossing: the loads x where
// a + b·(x − mx) is within Student's t (points less two degrees of
// freedom) standard errors of logit(allowed); both ends NaN when the
// slope is not above 0 by that many errors, or with fewer than 3 points.
func (l logistic) interval() (low, high float64) {
	if l.m < 3 || math.IsNaN(l.crossing()) {
		return math.NaN(), math.NaN()
	}
	t := studentT975(l.m - 2)
	d := l.a - math.Log(l.allowed/(1-l.allowed))
	// (d + b·u)² <= t²(va + 2u·cab + u²·vb), u = x − mx.
	qa := l.b*l.b - t*t*l.vb
	qb := 2 * (d*l.b - t*t*l.cab)
	qc := d*d - t*t*l.va
	disc := qb*qb - 4*qa*qc
	if qa <= 0 || disc < 0 {
		return math.NaN(), math.NaN()
	}
	return math.Max(0, l.mx+(-qb-math.Sqrt(disc))/(2*qa)), l.mx + (-qb+math.Sqrt(disc))/(2*qa)
}

// percentile reports whether stat is pN.
func percentile(stat string) bool {
	_, err := strconv.ParseFloat(strings.TrimPrefix(stat, "p"), 64)
	return strings.HasPrefix(stat, "p") && err == nil
}

// studentT975 is Student's t quantile at 0.975 (the two-sided 95% of
// results.DefaultConfidence) for df degrees of freedom (df >= 1): the
// tabled values to 30, beyond them the Cornish-Fisher expansion to
// 1/df², within 0.001 there. A table rather than gonum's distuv:
// benchtest links this package, and heavy dependencies sit behind an
// opt-in import (benchtest's TestDependencyBudget).
func studentT975(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df >= 1 && df <= len(table) {
		return table[df-1]
	}
	const z = 1.959964
	n := float64(df)
	return z + (z*z*z+z)/(4*n) + (5*z*z*z*z*z+16*z*z*z+3*z)/(96*n*n)
}
