package summary

import (
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// KindRequest is the error kind Payload gives a record whose request
// failed for a reason other than its policy timeout (a payload keeps the
// error's text, not its kind).
const KindRequest results.ErrorKind = "request"

// Evaluate measures every threshold on st, in order
// (results.Threshold.Evaluate).
func Evaluate(st results.LoadStats, ths []results.Threshold) []results.SLOResult {
	out := make([]results.SLOResult, len(ths))
	for i, th := range ths {
		out[i] = th.Evaluate(st)
	}
	return out
}

// Payload summarizes a results payload (what RunWorkload returns) as
// results.LoadStats, so thresholds (Evaluate; benchtest.WithSLO at the
// door) can gate a workload run. Every record is one
// request, judged by its Outcome (the engine's one verdict: fail and
// error count with their ErrorKind, pass and capped succeed). A record
// of a payload written before outcomes were recorded is judged by its
// fields: with Error set it failed, of kind policy_timeout when its
// policy timeout was exceeded, else of kind "request" (such a payload
// keeps the error text, not its type); one whose quality checks failed
// without an error is of kind "quality". The duration runs from the
// earliest started_at to the latest started_at + e2e latency (records
// whose started_at does not parse are left out of it), so throughputs are
// approximate for sequential runs with gaps between cases.
func Payload(p *results.Payload) results.LoadStats {
	samples := make([]loadgen.Sample, 0, len(p.Results))
	var first, last time.Time
	for i, r := range p.Results {
		if r.Interrupted {
			continue // stopped by the caller mid-request: not a measurement (as the summary)
		}
		m := r.Metrics
		s := loadgen.Sample{
			Index: i, TTFTms: m.TTFTms, TPOTms: m.TPOTms, E2ELms: m.E2ELms, ITLms: m.ITLms,
			GenTPS: m.GenTPS, CompletionTokens: m.CompletionTokens,
		}
		if m.TTFOms != nil {
			s.TTFOms, s.HasOutput = *m.TTFOms, true
		}
		switch {
		case r.Outcome != "":
			if r.Outcome.Failed() {
				s.Kind = r.ErrorKind // the engine's one verdict
			}
		case r.Error != "" && r.Policy.WithinTimeout != nil && !*r.Policy.WithinTimeout:
			s.Kind = results.KindPolicyTimeout
		case r.Error != "":
			s.Kind = KindRequest
		case !r.Quality.OK:
			s.Kind = results.KindQuality
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
	return Requests(samples, last.Sub(first), Options{})
}

// EvaluatePayload evaluates run-level thresholds (parsed once, at the
// door) on a workload payload's records (Payload) and records the
// outcomes in p.SLO, in the order given. It returns them.
func EvaluatePayload(p *results.Payload, ths []results.Threshold) []results.SLOResult {
	outcomes := Evaluate(Payload(p), ths)
	p.SLO = append([]results.SLOResult(nil), outcomes...)
	return outcomes
}

// CheckPayload is EvaluatePayload for thresholds as text, for a door
// that has them as written (a merged payload's slo block): it parses them
// and returns an error naming every one that does not parse (then p is
// unchanged).
func CheckPayload(p *results.Payload, thresholds []string) ([]results.SLOResult, error) {
	ths, err := results.ParseThresholds(thresholds...)
	if err != nil {
		return nil, err
	}
	return EvaluatePayload(p, ths), nil
}
