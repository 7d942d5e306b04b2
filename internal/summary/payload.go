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
// door) can gate a workload run. Every record is one request, seen
// through SampleOf (the engine's one verdict: fail and error count with
// their ErrorKind, pass and capped succeed; a record written before
// outcomes existed is judged by its fields); interrupted records are
// left out, as the payload summary leaves them out. The duration runs from the
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
		s := SampleOf(r)
		s.Index = i
		samples = append(samples, s)
		start, err := time.Parse("2006-01-02T15:04:05.999999-07:00", r.StartedAt)
		if err != nil {
			continue
		}
		end := start.Add(time.Duration(r.Metrics.E2ELms * float64(time.Millisecond)))
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
