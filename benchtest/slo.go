package benchtest

import (
	"math"
	"testing"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// checkSLOs evaluates run-level thresholds (results.ParseThreshold syntax:
// "ttft_p95_ms <= 500", "tpot_mean_ms <= 50", "error_rate <= 0.01",
// "gen_tps_p50 >= 20") on st, each as its own subtest of t named
// slo/<threshold without spaces> (slo/ttft_p95_ms<=500), like k6
// thresholds, so CI reports and gates on each one. A failing threshold
// fails its subtest with the measured value:
//
//	ttft_p95_ms = 612.4, want <= 500
//
// A threshold that does not parse fails a subtest slo/parse naming it, and
// the others are still checked. The measured value is also attached to
// each subtest as the attribute "measured". It returns the outcomes in
// order (parse failures left out) and whether every threshold parsed and
// passed.
//
// Users do not call it: they give thresholds with WithSLO or the
// workload's defaults.slo, and RunWorkload and BenchWorkload report the
// engine's outcomes through reportSLOs; the tests drive it directly.
func checkSLOs(t *testing.T, st results.LoadStats, thresholds ...string) ([]results.SLOResult, bool) {
	t.Helper()
	var ths []results.Threshold
	var bad []error
	for _, expr := range thresholds {
		th, err := results.ParseThreshold(expr)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		ths = append(ths, th)
	}
	outcomes := loadgen.Evaluate(st, ths)
	ok := len(bad) == 0
	for _, o := range outcomes {
		ok = ok && o.Pass
	}
	reportSLOs(t, bad, outcomes)
	return outcomes, ok
}

// reportSLOs turns SLO outcomes (from checkSLOs, or the engine's session:
// the same numbers as the payload's slo block)
// into subtests slo/<threshold>, and thresholds that did not parse into
// slo/parse.
func reportSLOs(t *testing.T, bad []error, outcomes []results.SLOResult) {
	t.Helper()
	t.Run("slo", func(t *testing.T) {
		if len(bad) > 0 {
			t.Run("parse", func(t *testing.T) {
				for _, err := range bad {
					say(t).Errorf("%s", err)
				}
			})
		}
		for _, o := range outcomes {
			t.Run(o.Name(), func(t *testing.T) {
				say(t).Attr("measured", formatAttr(o.Measured))
				if o.Pass {
					say(t).Logf("%s", o)
					return
				}
				say(t).Errorf("%s", o)
			})
		}
	})
}

func formatAttr(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return results.SLOResult{Measured: v}.MeasuredString()
}

// payloadStats summarizes a workload run's records as load statistics, so
// checkSLOs can gate a RunWorkload result.
func payloadStats(p *results.Payload) results.LoadStats { return loadgen.PayloadStats(p) }
