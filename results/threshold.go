package results

import (
	"errors"
	"fmt"
	"github.com/benchserve/benchserve/internal/stats"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Threshold is one run-level SLO, written metric_stat_unit op value (k6
// thresholds, in benchserve's names):
//
//	ttft_p95_ms <= 500      tpot_mean_ms <= 50     itl_p99.9_ms < 80
//	e2el_max_s <= 30        gen_tps_p50 >= 20      lag_p99_ms <= 5
//	error_rate <= 0.01      goodput >= 2           request_throughput >= 1
//
// Distribution metrics: ttft, ttfo, tpot, itl, e2el, lag (times: unit ms,
// s or us required) and gen_tps (tokens per second: no unit). Stats: mean,
// median, stddev, min, max, count, pN (any percentile, e.g. p99.9).
// Scalar metrics (no stat, no unit): error_rate, goodput (req/s),
// request_throughput (req/s), output_throughput (tok/s), output_tokens,
// requests, succeeded, failed, dropped, unsent, late, peak_in_flight.
// Operators: <, <=, >, >=, ==, !=.
type Threshold struct {
	// Expr is the expression as written.
	Expr string
	// Metric is the metric name (ttft, gen_tps, error_rate, …).
	Metric string
	// Stat is "mean", "p95", … ("" for scalar metrics).
	Stat string
	// Unit is "ms", "s", "us" for time metrics, "" otherwise.
	Unit string
	// Op is the comparison operator.
	Op string
	// Value is the limit, in Unit.
	Value float64
}

var (
	thresholdRE  = regexp.MustCompile(`^\s*([A-Za-z0-9_.]+)\s*(<=|>=|==|!=|<|>)\s*(\S+)\s*$`)
	percentileRE = regexp.MustCompile(`^p(\d+(?:\.\d+)?)$`)
)

var timeMetrics = map[string]bool{"ttft": true, "ttfo": true, "tpot": true, "itl": true, "e2el": true, "lag": true}

var scalarMetrics = map[string]func(LoadStats) float64{
	"error_rate":         func(s LoadStats) float64 { return s.ErrorRate },
	"goodput":            func(s LoadStats) float64 { return s.Goodput },
	"request_throughput": func(s LoadStats) float64 { return s.RequestThroughput },
	"output_throughput":  func(s LoadStats) float64 { return s.OutputThroughput },
	"output_tokens":      func(s LoadStats) float64 { return float64(s.OutputTokens) },
	"requests":           func(s LoadStats) float64 { return float64(s.Requests) },
	"succeeded":          func(s LoadStats) float64 { return float64(s.Succeeded) },
	"failed":             func(s LoadStats) float64 { return float64(s.Failed) },
	"dropped":            func(s LoadStats) float64 { return float64(s.Dropped) },
	"unsent":             func(s LoadStats) float64 { return float64(s.Unsent) },
	"late":               func(s LoadStats) float64 { return float64(s.Late) },
	"peak_in_flight":     func(s LoadStats) float64 { return float64(s.PeakInFlight) },
}

// ErrThreshold is wrapped by every ParseThreshold error.
var ErrThreshold = errors.New("bad threshold")

// ParseThreshold parses one expression (see Threshold). Its errors wrap
// ErrThreshold and name the expression and what is wrong with it:
//
//	load: threshold "ttft_p95 <= 500": ttft is a time: add a unit (_ms, _s or _us): bad threshold
func ParseThreshold(expr string) (Threshold, error) {
	bad := func(format string, args ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("load: threshold %q: %s: %w", expr, fmt.Sprintf(format, args...), ErrThreshold)
	}
	m := thresholdRE.FindStringSubmatch(expr)
	if m == nil {
		return bad("want metric_stat_unit op value, e.g. ttft_p95_ms <= 500")
	}
	t := Threshold{Expr: expr, Op: m[2]}
	v, err := strconv.ParseFloat(m[3], 64)
	if err != nil || math.IsNaN(v) {
		return bad("value %q is not a number", m[3])
	}
	t.Value = v
	name := strings.ToLower(m[1])
	if _, ok := scalarMetrics[name]; ok {
		t.Metric = name
		return t, nil
	}
	parts := strings.Split(name, "_")
	if len(parts) >= 2 && parts[0] == "gen" && parts[1] == "tps" {
		parts = append([]string{"gen_tps"}, parts[2:]...)
	}
	t.Metric = parts[0]
	if !timeMetrics[t.Metric] && t.Metric != "gen_tps" {
		return bad("unknown metric %q (want ttft, ttfo, tpot, itl, e2el, lag, gen_tps or a scalar such as error_rate)", t.Metric)
	}
	if len(parts) < 2 {
		return bad("%s needs a statistic (mean, median, stddev, min, max, count or pN)", t.Metric)
	}
	t.Stat = parts[1]
	if !validStat(t.Stat) {
		return bad("unknown statistic %q (want mean, median, stddev, min, max, count or pN such as p95)", t.Stat)
	}
	if pm := percentileRE.FindStringSubmatch(t.Stat); pm != nil {
		if p, _ := strconv.ParseFloat(pm[1], 64); p > 100 {
			return bad("percentile %s is above 100", pm[1])
		}
	}
	switch {
	case len(parts) > 3:
		return bad("unexpected %q after the unit", strings.Join(parts[3:], "_"))
	case timeMetrics[t.Metric] && t.Stat == "count":
		if len(parts) == 3 {
			return bad("count has no unit")
		}
	case timeMetrics[t.Metric]:
		if len(parts) < 3 {
			return bad("%s is a time: add a unit (_ms, _s or _us)", t.Metric)
		}
		t.Unit = parts[2]
		if unitScale(t.Unit) == 0 {
			return bad("unknown time unit %q (want ms, s or us)", t.Unit)
		}
	case len(parts) == 3:
		return bad("%s takes no unit, got %q", t.Metric, parts[2])
	}
	return t, nil
}

// ParseThresholds parses every expression and returns all the problems
// found joined (errors.Join), or the thresholds in order.
func ParseThresholds(exprs ...string) ([]Threshold, error) {
	out := make([]Threshold, 0, len(exprs))
	var errs []error
	for _, e := range exprs {
		t, err := ParseThreshold(e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, t)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func validStat(s string) bool {
	switch s {
	case "mean", "median", "stddev", "min", "max", "count":
		return true
	}
	return percentileRE.MatchString(s)
}

// unitScale is milliseconds per unit, 0 for an unknown unit.
func unitScale(u string) float64 {
	switch u {
	case "ms":
		return 1
	case "s":
		return 1000
	case "us":
		return 0.001
	}
	return 0
}

// Scale is the factor from the threshold's unit to its metric's samples'
// (milliseconds for latencies): 1000 for "_s", 1 for "_ms" and for a
// threshold without a unit.
func (t Threshold) Scale() float64 {
	if t.Unit == "" {
		return 1
	}
	return unitScale(t.Unit)
}

// Name is the threshold without spaces, for subtest names:
// "ttft_p95_ms<=500".
func (t Threshold) Name() string {
	name := t.Metric
	if t.Stat != "" {
		name += "_" + t.Stat
	}
	if t.Unit != "" {
		name += "_" + t.Unit
	}
	return name + t.Op + strconv.FormatFloat(t.Value, 'g', -1, 64)
}

// Measure returns the threshold's metric in its unit; NaN when the
// distribution has no samples, and for error_rate when no request was
// sent or dropped (a rate of nothing is not 0).
func (t Threshold) Measure(s LoadStats) float64 {
	if t.Metric == "error_rate" && s.Requests+s.Dropped == 0 {
		return math.NaN()
	}
	if f, ok := scalarMetrics[t.Metric]; ok {
		return f(s)
	}
	d, _ := t.dist(s)
	var v float64
	switch t.Stat {
	case "count":
		return float64(d.Count)
	}
	if d.Count == 0 {
		return math.NaN() // a zero Dist's fields are 0, not a measurement
	}
	switch t.Stat {
	case "mean":
		v = d.Mean
	case "median":
		v = d.Median
	case "stddev":
		v = d.Stddev
	case "min":
		v = d.Min
	case "max":
		v = d.Max
	default:
		p, _ := strconv.ParseFloat(strings.TrimPrefix(t.Stat, "p"), 64)
		v = d.Percentile(p)
	}
	if t.Unit != "" {
		v /= unitScale(t.Unit)
	}
	return v
}

// dist is the distribution the threshold's metric reads; false for a
// scalar metric.
func (t Threshold) dist(s LoadStats) (Dist, bool) {
	switch t.Metric {
	case "ttft":
		return s.TTFT, true
	case "ttfo":
		return s.TTFO, true
	case "tpot":
		return s.TPOT, true
	case "itl":
		return s.ITL, true
	case "e2el":
		return s.E2EL, true
	case "lag":
		return s.Lag, true
	case "gen_tps":
		return s.GenTPS, true
	}
	return Dist{}, false
}

// Evaluate measures the threshold on s.
func (t Threshold) Evaluate(s LoadStats) SLOResult {
	v := t.Measure(s)
	o := SLOResult{Threshold: t, Measured: v}
	switch t.Metric {
	case "tpot", "itl", "gen_tps":
		o.Skipped = s.DecodeSkipped
	}
	if math.IsNaN(v) {
		return o
	}
	if iv, ok := t.Interval(s, DefaultConfidence); ok {
		o.CI = &iv
	}
	switch t.Op {
	case "<":
		o.Pass = v < t.Value
	case "<=":
		o.Pass = v <= t.Value
	case ">":
		o.Pass = v > t.Value
	case ">=":
		o.Pass = v >= t.Value
	case "==":
		o.Pass = v == t.Value
	case "!=":
		o.Pass = v != t.Value
	}
	return o
}

// Interval is the confidence interval of the threshold's statistic on s,
// in the threshold's unit, at confidence, its autocorrelation taken over
// the samples rounded to a hundredth of the limit (timer jitter far below
// the limit is no run of slow requests);
// ok is false for a threshold
// that is neither a percentile (pN or median) of a distribution metric
// nor the error rate (whose interval is the exact binomial one over its
// failed and dropped requests, stats.ProportionInterval; none without a
// request), and for == and != (an interval decides neither).
func (t Threshold) Interval(s LoadStats, confidence float64) (iv Interval, ok bool) {
	if t.Op == "==" || t.Op == "!=" {
		return Interval{}, false
	}
	if t.Metric == "error_rate" {
		// A proportion carries its interval as a percentile does: 3
		// failures in 100 requests do not fail a 1% limit with confidence.
		k, n := s.Failed+s.Dropped, s.Requests+s.Dropped
		if n < 1 {
			return Interval{}, false
		}
		low, high := stats.ProportionInterval(k, n, confidence)
		return Interval{Low: low, High: high, Confidence: confidence, Method: stats.MethodClopperPearson,
			N: n, EffectiveN: float64(n)}, true
	}
	p := 50.0
	switch {
	case t.Stat == "median" || t.Stat == "p50":
	case percentileRE.MatchString(t.Stat):
		p, _ = strconv.ParseFloat(t.Stat[1:], 64)
	default:
		return Interval{}, false
	}
	d, ok := t.dist(s)
	if !ok {
		return Interval{}, false
	}
	// Resolution: a hundredth of the limit (2 ms for 200 ms).
	iv = orderInterval(d.ordered, p, confidence, math.Abs(t.Value)/100*t.Scale())
	iv.Low /= t.Scale()
	iv.High /= t.Scale()
	return iv, true
}
