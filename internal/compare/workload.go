package compare

import (
	"errors"
	"fmt"
	"github.com/benchserve/benchserve/internal/summary"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/compare/legend"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// The verdicts of a results.Change.
const (
	VerdictBetter   = "better"
	VerdictWorse    = "worse"
	VerdictSame     = "~"
	VerdictTooFew   = "too few samples"
	defaultAlpha    = 0.05
	testMedian      = legend.Median
	testPaired      = legend.Paired
	testPercentile  = legend.Percentile
	testProportions = legend.Proportions
)

// Options steer a comparison; the zero value compares at alpha 0.05,
// refuses every difference and gates nothing.
type Options struct {
	// Alpha is the familywise significance level (default 0.05).
	Alpha float64
	// Allow names the differences accepted between the sides (AllowNames).
	Allow []string
	// Gates are the --fail-on rules. With gates, only a failed gate or a
	// regression (pass → fail) makes the comparison Regressed; without,
	// any row called worse does.
	Gates []Gate
}

// row is a results.Change being built, with what its verdict needs.
type row struct {
	results.Change
	p        float64 // raw p-value, NaN for interval rows
	interval func(confidence float64) stats.Shift
	shift    stats.Shift
	tested   bool // both sides had samples
	fixed    bool // verdict and interval set by its maker (capacity brackets), outside the family
}

// Workloads compares the candidate's runs with the base's. Each side is
// one or more payloads of the same workload (repeated runs, pooled);
// errors wrap ErrBadInput (a run with nothing to compare, naming its
// file and field; a candidate run whose every request failed is not
// one, but a regression) or ErrIncomparable (the sides differ, unless allowed).
func Workloads(base, candidate []Run, opt Options) (*results.Comparison, error) {
	if err := checkAlpha(&opt); err != nil {
		return nil, err
	}
	b, err := newSide(base, false)
	if err != nil {
		return nil, err
	}
	c, err := newSide(candidate, true)
	if err != nil {
		return nil, err
	}
	allowed, err := checkComparable(base, candidate, opt.Allow)
	if err != nil {
		return nil, err
	}
	cmp := &results.Comparison{Kind: "workload", Alpha: opt.Alpha, Allowed: allowed,
		Changes: []results.Change{}, Regressions: append(append([]string{}, c.silent...), transitions(b, c)...), ContractChanges: contractChanges(b, c)}
	for _, r := range base {
		cmp.Base = append(cmp.Base, r.Label)
	}
	for _, r := range candidate {
		cmp.Candidate = append(cmp.Candidate, r.Label)
	}
	cmp.AnswerChanges = greedyChanges(b, c)

	var rows []*row
	if onlyContracts(b) && onlyContracts(c) {
		// A contract's timings measure one probe request each: its
		// verdict is what the comparison is about.
		cmp.Kind = "conformance"
	} else {
		rows = runRows(b, c)
		for _, id := range b.cases {
			if cr, ok := c.byCase[id]; ok {
				rows = append(rows, caseRows(id, b.byCase[id], cr)...)
			}
		}
	}
	for _, r := range append(slices.Clone(base), candidate...) {
		if r.History && r.Payload.Workload.Digest == "" {
			cmp.Allowed = append(cmp.Allowed, "workload: the history's rows keep no workload digest: "+
				"its runs are matched by the workload's name, case ids and request settings, not by their messages")
			break
		}
	}
	finish(cmp, rows, opt)
	return cmp, nil
}

// finish decides rows, applies the gates and says whether cmp regressed.
func finish(cmp *results.Comparison, rows []*row, opt Options) {
	decide(rows, opt.Alpha)
	for _, r := range rows {
		cmp.Changes = append(cmp.Changes, r.Change)
	}
	for _, g := range opt.Gates {
		rows, decided := 0, 0
		for _, ch := range cmp.Changes {
			if ch.Metric != g.Metric {
				continue
			}
			rows++
			if ch.Verdict != VerdictTooFew && ch.Delta != nil {
				decided++
			}
			if g.fails(ch) {
				cmp.GateFailures = append(cmp.GateFailures, fmt.Sprintf("%s: %s: %s, worse", g.Text, scope(ch.Case), changeText(ch)))
			}
		}
		switch {
		case rows == 0:
			cmp.GateUndecided = append(cmp.GateUndecided, fmt.Sprintf("%s: these inputs have no %s row to gate", g.Text, g.Metric))
		case decided == 0:
			which := fmt.Sprintf("the %s row", g.Metric)
			if rows > 1 {
				which = fmt.Sprintf("all %d %s rows", rows, g.Metric)
			}
			cmp.GateUndecided = append(cmp.GateUndecided, fmt.Sprintf("%s: no row decided: %s had too few samples to call a change; measure more requests a side", g.Text, which))
		}
	}
	worse := slices.ContainsFunc(cmp.Changes, func(ch results.Change) bool { return ch.Verdict == VerdictWorse })
	cmp.Regressed = len(cmp.Regressions) > 0 || len(cmp.GateFailures) > 0 || (len(opt.Gates) == 0 && worse)
}

// checkAlpha applies the default alpha and refuses one outside (0, 1).
func checkAlpha(opt *Options) error {
	if opt.Alpha == 0 {
		opt.Alpha = defaultAlpha
	}
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		return fmt.Errorf("compare: alpha %v: want a value in (0, 1)", opt.Alpha)
	}
	return nil
}

func scope(caseID string) string {
	if caseID == "" {
		return "all cases"
	}
	return "case " + strconv.Quote(caseID)
}

// caseRows are one case's rows: its requests on each side, unpaired.
func caseRows(id string, b, c []results.Record) []*row {
	var rows []*row
	for _, m := range metricNames {
		var r *row
		switch {
		case m == "error_rate":
			r = proportionRow(b, c)
		case m == "throughput_rps" || m == "goodput_rps":
			continue
		case strings.Contains(m, "_p50_") && !strings.HasPrefix(m, "itl") || m == "gen_tps":
			r = medianRow(metricSamples(b, m), metricSamples(c, m))
		default:
			r = percentileRow(metricSamples(b, m), metricSamples(c, m), percentileOf(m))
		}
		r.Case, r.Metric = id, m
		r.Unit, r.HigherIsBetter = unitOf(m)
		rows = append(rows, r)
	}
	return rows
}

// minPairedCases is the fewest cases a paired run-wide test uses: the
// signed-rank test of 5 differences cannot reach p < 0.0625, so with
// fewer cases the pooled requests are tested unpaired (the same case mix
// on both sides).
const minPairedCases = 6

// runRows are the run-wide rows: with several cases, the medians paired
// by case when both sides ran the same (at least minPairedCases) cases,
// else and for the percentiles and error rate the requests pooled; a
// load run's rates, one sample per run.
func runRows(b, c *side) []*row {
	var rows []*row
	paired := slices.Equal(sortedCopy(b.cases), sortedCopy(c.cases))
	if len(b.cases) > 1 || len(c.cases) > 1 {
		for _, m := range metricNames {
			var r *row
			switch {
			case m == "error_rate":
				r = proportionRow(b.records, c.records)
			case m == "throughput_rps" || m == "goodput_rps":
				continue
			case strings.Contains(m, "_p50_") && !strings.HasPrefix(m, "itl") || m == "gen_tps":
				if paired && len(b.cases) >= minPairedCases {
					r = pairedRow(b, c, m)
				} else {
					r = medianRow(metricSamples(b.records, m), metricSamples(c.records, m))
				}
			default:
				r = percentileRow(metricSamples(b.records, m), metricSamples(c.records, m), percentileOf(m))
			}
			r.Metric = m
			r.Unit, r.HigherIsBetter = unitOf(m)
			rows = append(rows, r)
		}
	}
	for _, m := range []string{"throughput_rps", "goodput_rps"} {
		bv, cv := runRates(b.runs, m), runRates(c.runs, m)
		if len(bv) == 0 && len(cv) == 0 {
			continue
		}
		r := medianRow(bv, cv)
		r.Metric = m
		r.Unit, r.HigherIsBetter = unitOf(m)
		rows = append(rows, r)
	}
	return rows
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// runRates are the runs' completed-request throughputs or goodputs
// (requests/s: completions over the wall span, first send to last end),
// one a run that measured one. The achieved sending rate is not a
// throughput: in a closed loop it is how fast the client sent, which a
// slower server does not lower (a payload from before request_throughput
// has none).
func runRates(runs []Run, metric string) []float64 {
	var out []float64
	for _, r := range runs {
		s := r.Payload.Schedule
		if s == nil {
			continue
		}
		v := s.RequestThroughput
		if metric == "goodput_rps" {
			v = s.Goodput
		}
		if v != nil {
			out = append(out, *v)
		}
	}
	return out
}

func percentileOf(metric string) float64 {
	switch {
	case strings.Contains(metric, "_p95"):
		return 95
	case strings.Contains(metric, "_p99"):
		return 99
	}
	return 50
}

func unitOf(metric string) (unit string, higherIsBetter bool) {
	switch metric {
	case "gen_tps", "prompt_tps", "throughput_tps":
		return "tokens/s", true
	case "throughput_rps", "goodput_rps", "requests_per_s", "capacity_rps":
		return "requests/s", true
	case "capacity_concurrency":
		return "streams", true
	case "error_rate":
		return "ratio", false
	}
	return "ms", false
}

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return stats.Percentile(s, 50)
}

// medianRow tests two independent samples: Mann–Whitney's p, the
// Hodges–Lehmann shift and its interval.
func medianRow(b, c []float64) *row {
	r := &row{p: math.NaN(), tested: len(b) > 0 && len(c) > 0}
	r.Test, r.BaseN, r.CandidateN = testMedian, len(b), len(c)
	r.Base, r.Candidate = ptr(median(b)), ptr(median(c))
	if r.tested {
		if p, err := stats.MannWhitney(b, c); err == nil {
			r.p = p
		} else if errors.Is(err, stats.ErrTooFewSamples) && median(b) == median(c) {
			r.p = 1 // every value equal on both sides: no change
		}
		r.interval = func(conf float64) stats.Shift { s, _ := stats.HodgesLehmann(b, c, conf); return s }
	}
	return r
}

// pairedRow tests the per-case medians' differences of the cases both
// sides ran: Wilcoxon signed-rank and the paired Hodges–Lehmann shift.
func pairedRow(b, c *side, metric string) *row {
	var d []float64
	for _, id := range b.cases {
		mb, mc := median(metricSamples(b.byCase[id], metric)), median(metricSamples(c.byCase[id], metric))
		if !math.IsNaN(mb) && !math.IsNaN(mc) {
			d = append(d, mc-mb)
		}
	}
	bs, cs := metricSamples(b.records, metric), metricSamples(c.records, metric)
	r := &row{p: math.NaN(), tested: len(d) > 0}
	r.Test, r.Paired, r.BaseN, r.CandidateN = testPaired, true, len(bs), len(cs)
	r.Base, r.Candidate = ptr(median(bs)), ptr(median(cs))
	if r.tested {
		if p, err := stats.WilcoxonSignedRank(d); err == nil {
			r.p = p
		} else {
			r.p = 1 // every case's median unchanged
		}
		r.interval = func(conf float64) stats.Shift { s, _ := stats.PairedHodgesLehmann(d, conf); return s }
	}
	return r
}

// percentileRow compares a percentile by the sides' order-statistic
// intervals (interval-only: significant when it excludes 0).
func percentileRow(b, c []float64, p float64) *row {
	r := &row{p: math.NaN(), tested: len(b) > 0 && len(c) > 0}
	r.Test, r.BaseN, r.CandidateN = testPercentile, len(b), len(c)
	r.Base, r.Candidate = ptr(pct(b, p)), ptr(pct(c, p))
	if r.tested {
		r.interval = func(conf float64) stats.Shift { s, _ := stats.PercentileDifference(b, c, p, conf, 0); return s }
	}
	return r
}

func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return stats.Percentile(s, p)
}

// proportionRow compares the failed requests' shares (interval-only).
func proportionRow(b, c []results.Record) *row {
	fb, fc := failures(b), failures(c)
	r := &row{p: math.NaN(), tested: len(b) > 0 && len(c) > 0}
	r.Test, r.BaseN, r.CandidateN = testProportions, len(b), len(c)
	if r.tested {
		r.Base, r.Candidate = ptr(float64(fb)/float64(len(b))), ptr(float64(fc)/float64(len(c)))
		r.interval = func(conf float64) stats.Shift {
			s, _ := stats.ProportionDifference(fb, len(b), fc, len(c), conf)
			return s
		}
	}
	return r
}

// failures counts the records that count against their run, by the one
// verdict every door reads (summary.SampleOf: a failed outcome, or for an
// older payload an error or failed checks), so the comparison's
// error_rate is the SLOs' error_rate.
func failures(records []results.Record) int {
	n := 0
	for _, r := range records {
		if summary.SampleOf(r).Kind != "" {
			n++
		}
	}
	return n
}

// decide gives every row its interval and verdict, holding the family at
// alpha: of m tested rows, the mp with a p-value share α·mp/m under
// Holm, the interval-only rows α/m each (Bonferroni).
func decide(rows []*row, alpha float64) {
	var ps []float64
	var prows []*row
	m := 0
	for _, r := range rows {
		if !r.tested || r.fixed {
			continue
		}
		m++
		if !math.IsNaN(r.p) {
			ps, prows = append(ps, r.p), append(prows, r)
		}
	}
	adj := stats.Holm(ps)
	for i, r := range prows {
		r.P = ptr(math.Min(1, adj[i]*float64(m)/float64(len(prows))))
	}
	for _, r := range rows {
		if r.fixed {
			continue
		}
		r.Verdict = VerdictTooFew
		if !r.tested {
			continue
		}
		conf := 1 - alpha
		if math.IsNaN(r.p) {
			conf = 1 - alpha/float64(m)
		}
		s := r.interval(conf)
		r.Delta, r.Low, r.High = ptr(s.Estimate), ptr(s.Low), ptr(s.High)
		if r.Delta != nil && r.Base != nil && *r.Base != 0 {
			r.Relative = ptr(*r.Delta / math.Abs(*r.Base))
		}
		if r.Low == nil || r.High == nil {
			continue // the interval cannot be bounded: too few samples
		}
		significant := *r.Low > 0 || *r.High < 0
		if r.P != nil {
			significant = *r.P <= alpha && s.Estimate != 0
		}
		r.Verdict = VerdictSame
		if significant {
			up := s.Estimate > 0
			if up == r.HigherIsBetter {
				r.Verdict = VerdictBetter
			} else {
				r.Verdict = VerdictWorse
			}
		}
	}
}
