package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/compare/legend"
	"github.com/benchserve/benchserve/results"
)

// CapacityRun is one capacity search's result (capacity.json) of a side
// and the name it is reported by.
type CapacityRun struct {
	Label    string
	Capacity *results.Capacity
}

const (
	testBrackets = legend.Brackets + ": significant when they do not overlap"
	testGroups   = legend.Groups
)

// Capacities compares capacity searches by their capacity, higher being
// better (one row, metric "capacity_rps" or "capacity_concurrency").
// With one search a side, the two intervals decide (each the bracket
// between the highest load that passed with confidence and the lowest
// that failed with confidence, at the search's confidence): the
// candidate is worse when its interval lies wholly below the base's,
// better when wholly above, "~" when they overlap, and "too few samples"
// when the ends needed are missing (neither search established them).
// Delta is the difference of the capacities, Low and High the interval
// the brackets give it (candidate low − base high, candidate high − base
// low). Several searches a side are tested as samples of their measured
// capacities (Mann–Whitney U, Hodges–Lehmann at Alpha). A capacity
// result names no model or workload: only the searches' settings (by,
// SLOs, error-rate limit) are checked, ErrIncomparable when they differ
// unless "settings" is allowed.
func Capacities(base, candidate []CapacityRun, opt Options) (*results.Comparison, error) {
	if err := checkAlpha(&opt); err != nil {
		return nil, err
	}
	var ids []labelled
	for _, side := range [][]CapacityRun{base, candidate} {
		if len(side) == 0 {
			return nil, fmt.Errorf("%w: a side has no runs", ErrBadInput)
		}
		for _, r := range side {
			ids = append(ids, labelled{r.Label, capacityIdentity(r.Capacity)})
		}
	}
	allowed, err := checkIdentities(ids, opt.Allow)
	if err != nil {
		return nil, err
	}
	by := base[0].Capacity.By
	for _, r := range append(append([]CapacityRun{}, base...), candidate...) {
		if r.Capacity.By != by {
			return nil, fmt.Errorf("%w: %s searched by %s, %s by %s: a capacity in requests/s and one in streams cannot be compared",
				ErrIncomparable, base[0].Label, by, r.Label, r.Capacity.By)
		}
	}
	cmp := &results.Comparison{Kind: "capacity", Alpha: opt.Alpha, Allowed: allowed, Changes: []results.Change{}, Regressions: []string{}}
	for _, r := range base {
		cmp.Base = append(cmp.Base, r.Label)
	}
	for _, r := range candidate {
		cmp.Candidate = append(cmp.Candidate, r.Label)
	}
	metric := "capacity_rps"
	if by == "concurrency" {
		metric = "capacity_concurrency"
	}
	var r *row
	if len(base) == 1 && len(candidate) == 1 {
		r = bracketRow(base[0].Capacity, candidate[0].Capacity)
	} else {
		r = medianRow(capacities(base), capacities(candidate))
		r.Test = testGroups
	}
	r.Metric = metric
	r.Unit, r.HigherIsBetter = unitOf(metric)
	finish(cmp, []*row{r}, opt)
	return cmp, nil
}

// capacities are the measured capacities of a side's searches.
func capacities(runs []CapacityRun) []float64 {
	var out []float64
	for _, r := range runs {
		if r.Capacity.Measured {
			out = append(out, r.Capacity.Capacity)
		}
	}
	return out
}

// bracketRow compares two searches by their intervals.
func bracketRow(b, c *results.Capacity) *row {
	r := &row{p: math.NaN(), tested: true, fixed: true}
	r.Test, r.BaseN, r.CandidateN = testBrackets, len(b.Probes), len(c.Probes)
	if conf := b.Interval.Confidence; conf > 0 && conf == c.Interval.Confidence {
		r.Test = fmt.Sprintf(legend.Brackets+" at %s%%: significant when they do not overlap", strconv.FormatFloat(100*conf, 'g', 4, 64))
	}
	value := func(x *results.Capacity) *float64 {
		if !x.Measured {
			return nil
		}
		return ptr(x.Capacity)
	}
	r.Base, r.Candidate = value(b), value(c)
	if r.Base != nil && r.Candidate != nil {
		r.Delta = ptr(*r.Candidate - *r.Base)
		if *r.Base != 0 {
			r.Relative = ptr(*r.Delta / math.Abs(*r.Base))
		}
	}
	bl, bh, cl, ch := b.Interval.Low, b.Interval.High, c.Interval.Low, c.Interval.High
	r.Low, r.High = ptr(cl-bh), ptr(ch-bl)
	canWorse, canBetter := finite(ch) && finite(bl), finite(cl) && finite(bh)
	switch {
	case canWorse && ch < bl:
		r.Verdict = VerdictWorse
	case canBetter && cl > bh:
		r.Verdict = VerdictBetter
	case canWorse || canBetter:
		r.Verdict = VerdictSame
	default:
		r.Verdict = VerdictTooFew
	}
	return r
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// capacityIdentity is what must match between capacity searches: their
// settings (a capacity result names no model, server or workload).
func capacityIdentity(c *results.Capacity) map[string]string {
	var slos []string
	for _, t := range c.SLOs {
		slos = append(slos, t.Expr)
	}
	return map[string]string{"settings": fmt.Sprintf("by=%s slos=[%s] max_error_rate=%g", c.By, strings.Join(slos, "; "), c.MaxErrorRate)}
}
