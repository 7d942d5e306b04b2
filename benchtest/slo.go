package benchtest

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/load"
	"github.com/benchserve/benchserve/results"
)

// CheckSLOs evaluates run-level thresholds (load.ParseThreshold syntax:
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
// After RunWorkload: benchtest.CheckSLOs(t, benchtest.PayloadStats(p), …);
// after a load run: benchtest.CheckSLOs(t, run.Stats(opts), …).
func CheckSLOs(t *testing.T, st load.Stats, thresholds ...string) ([]load.Outcome, bool) {
	t.Helper()
	var ths []load.Threshold
	var bad []error
	for _, expr := range thresholds {
		th, err := load.ParseThreshold(expr)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		ths = append(ths, th)
	}
	outcomes := load.Evaluate(st, ths)
	ok := len(bad) == 0
	t.Run("slo", func(t *testing.T) {
		if len(bad) > 0 {
			t.Run("parse", func(t *testing.T) {
				for _, err := range bad {
					assert.Fail(t, err.Error())
				}
			})
		}
		for _, o := range outcomes {
			ok = ok && o.Pass
			t.Run(o.Name(), func(t *testing.T) {
				t.Attr("measured", formatAttr(o.Measured))
				if o.Pass {
					t.Log(o.String())
					return
				}
				assert.Fail(t, o.String())
			})
		}
	})
	return outcomes, ok
}

func formatAttr(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return load.Outcome{Measured: v}.MeasuredString()
}

// PayloadStats summarizes a results payload (what RunWorkload returns) as
// load.Stats, so CheckSLOs can gate a RunWorkload run. Every record is one
// request. A record with Error set is failed: of kind policy_timeout when
// its policy timeout was exceeded, else of kind "request" (the payload
// keeps the error text, not its type); one whose quality checks failed
// without an error is of kind "quality". The duration runs from the
// earliest started_at to the latest started_at + e2e latency (records
// whose started_at does not parse are left out of it), so throughputs are
// approximate for sequential runs with gaps between cases.
func PayloadStats(p *results.Payload) load.Stats {
	samples := make([]load.Sample, 0, len(p.Results))
	var first, last time.Time
	for i, r := range p.Results {
		m := r.Metrics
		s := load.Sample{
			Index: i, TTFTms: m.TTFTms, TPOTms: m.TPOTms, E2ELms: m.E2ELms, ITLms: m.ITLms,
			GenTPS: m.GenTPS, CompletionTokens: m.CompletionTokens,
		}
		if m.TTFOms != nil {
			s.TTFOms, s.HasOutput = *m.TTFOms, true
		}
		switch {
		case r.Error != "" && r.Policy.WithinTimeout != nil && !*r.Policy.WithinTimeout:
			s.Kind = load.KindPolicyTimeout
		case r.Error != "":
			s.Kind = KindRequestError
		case !r.Quality.OK:
			s.Kind = load.KindQuality
		}
		samples = append(samples, s)
		start, err := time.Parse("2006-01-02T15:04:05.999999-07:00", r.StartedAt)
		if err != nil {
			continue
		}
		end := start.Add(time.Duration(m.E2ELms * float64(time.Millisecond)))
		if first.IsZero() || start.Before(first) {
			first = start
		}
		if end.After(last) {
			last = end
		}
	}
	return load.Summarize(samples, last.Sub(first), load.StatsOptions{})
}

// KindRequestError is the error kind PayloadStats gives a record whose
// request failed for a reason other than its policy timeout.
const KindRequestError load.ErrorKind = "request"
