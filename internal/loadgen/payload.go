package loadgen

import (
	"math"
	"time"

	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// PayloadStats summarizes a results payload (what RunWorkload returns) as
// stats.Stats, so thresholds (stats.Evaluate; benchtest.WithSLO at the door) can gate a workload run. Every record is one
// request. A record with Error set is failed: of kind policy_timeout when
// its policy timeout was exceeded, else of kind "request" (the payload
// keeps the error text, not its type); one whose quality checks failed
// without an error is of kind "quality". The duration runs from the
// earliest started_at to the latest started_at + e2e latency (records
// whose started_at does not parse are left out of it), so throughputs are
// approximate for sequential runs with gaps between cases.
func PayloadStats(p *results.Payload) stats.Stats {
	samples := make([]Sample, 0, len(p.Results))
	var first, last time.Time
	for i, r := range p.Results {
		if r.Interrupted {
			continue // stopped by the caller mid-request: not a measurement (as the summary)
		}
		m := r.Metrics
		s := Sample{
			Index: i, TTFTms: m.TTFTms, TPOTms: m.TPOTms, E2ELms: m.E2ELms, ITLms: m.ITLms,
			GenTPS: m.GenTPS, CompletionTokens: m.CompletionTokens,
		}
		if m.TTFOms != nil {
			s.TTFOms, s.HasOutput = *m.TTFOms, true
		}
		switch {
		case r.Error != "" && r.Policy.WithinTimeout != nil && !*r.Policy.WithinTimeout:
			s.Kind = stats.KindPolicyTimeout
		case r.Error != "":
			s.Kind = stats.KindRequest
		case !r.Quality.OK:
			s.Kind = stats.KindQuality
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
	return Summarize(samples, last.Sub(first), StatsOptions{})
}

// EvaluatePayload evaluates run-level thresholds (parsed once, at the
// door) on a workload payload's records (PayloadStats) and records the
// outcomes in p.SLO, each named by its threshold as written, in the order
// given. It returns the outcomes.
func EvaluatePayload(p *results.Payload, ths []stats.Threshold) []stats.Outcome {
	outcomes := stats.Evaluate(PayloadStats(p), ths)
	exprs := make([]string, len(ths))
	for i, th := range ths {
		exprs[i] = th.Expr
	}
	p.SLO = SLOResults(exprs, outcomes)
	return outcomes
}

// CheckPayload is EvaluatePayload for thresholds as text, for a door
// that has them as written (a merged payload's slo block): it parses them
// and returns an error naming every one that does not parse (then p is
// unchanged).
func CheckPayload(p *results.Payload, thresholds []string) ([]stats.Outcome, error) {
	ths, err := stats.ParseThresholds(thresholds...)
	if err != nil {
		return nil, err
	}
	return EvaluatePayload(p, ths), nil
}

// SLOResults turns outcomes into the payload's slo entries, each named by
// the threshold as written (exprs[i] for outcomes[i]); a measurement
// without samples (NaN) is recorded as null.
func SLOResults(exprs []string, outcomes []stats.Outcome) []results.SLOResult {
	out := make([]results.SLOResult, len(outcomes))
	for i, o := range outcomes {
		name := o.Name()
		if i < len(exprs) {
			name = exprs[i]
		}
		r := results.SLOResult{Threshold: name, Pass: o.Pass}
		if !math.IsNaN(o.Measured) {
			m := o.Measured
			r.Measured = &m
		}
		if o.CI != nil {
			conclusive := o.Conclusive()
			r.CI, r.Conclusive = results.IntervalOf(*o.CI), &conclusive
		}
		out[i] = r
	}
	return out
}
