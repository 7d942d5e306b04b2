package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/results"
)

// Gate is one --fail-on rule: the candidate fails it when Metric's change
// is significant in the bad direction and beyond Tolerance.
type Gate struct {
	// Metric is a Change.Metric name ("ttft_p95_ms").
	Metric string
	// Tolerance is the allowed change in the bad direction: a fraction
	// of the base value when Relative (0.10 for "+10%"), else in the
	// metric's unit ("+5" ms).
	Tolerance float64
	Relative  bool
	// Text is the rule as written.
	Text string
}

// metricNames are the rows a workload comparison makes, in table order.
var metricNames = []string{
	"ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms",
	"tpot_p50_ms", "tpot_p95_ms", "tpot_p99_ms",
	"itl_p50_ms", "itl_p95_ms", "itl_p99_ms",
	"e2el_p50_ms", "e2el_p95_ms", "e2el_p99_ms",
	"gen_tps", "error_rate", "throughput_rps", "goodput_rps",
}

// ParseGate reads a --fail-on rule (a workload's metricNames, a sweep's
// sweepMetrics, or capacity_rps / capacity_concurrency), "METRIC +N%" (relative) or "METRIC
// +N" (absolute, in the metric's unit); the sign is optional and only
// the size counts, the bad direction being the metric's own (up for
// latencies, down for rates). Errors name the rule and what is wrong.
func ParseGate(s string) (Gate, error) {
	fields := strings.Fields(s)
	if len(fields) != 2 {
		return Gate{}, fmt.Errorf("compare: --fail-on %q: want \"METRIC +N%%\" or \"METRIC +N\", e.g. \"ttft_p95_ms +10%%\"", s)
	}
	name, tol := fields[0], fields[1]
	known := false
	all := append(append(slices.Clone(metricNames), sweepMetrics...), "capacity_rps", "capacity_concurrency")
	for _, m := range all {
		known = known || m == name
	}
	if !known {
		return Gate{}, fmt.Errorf("compare: --fail-on %q: unknown metric %q (known: %s)", s, name, strings.Join(all, ", "))
	}
	g := Gate{Metric: name, Text: s}
	if t, ok := strings.CutSuffix(tol, "%"); ok {
		g.Relative, tol = true, t
	}
	v, err := strconv.ParseFloat(strings.TrimLeft(tol, "+-"), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return Gate{}, fmt.Errorf("compare: --fail-on %q: tolerance %q is not a number", s, fields[1])
	}
	if g.Relative {
		v /= 100
	}
	g.Tolerance = v
	return g, nil
}

// fails reports whether row breaks g: called worse (significant) and
// its estimated change beyond the tolerance in the bad direction.
func (g Gate) fails(row results.Change) bool {
	if row.Metric != g.Metric || row.Verdict != VerdictWorse || row.Delta == nil {
		return false
	}
	bad := *row.Delta
	if row.HigherIsBetter {
		bad = -bad
	}
	if g.Relative {
		if row.Base == nil || *row.Base == 0 {
			return bad > 0
		}
		return bad/math.Abs(*row.Base) > g.Tolerance
	}
	return bad > g.Tolerance
}
