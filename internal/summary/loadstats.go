package summary

import (
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// Options tunes Requests and Run. The zero value works.
type Options struct {
	// Percentiles are extra percentiles (besides 50/90/95/99) to compute
	// for every results.Dist, e.g. 99.9.
	Percentiles []float64
	// Goodput, when non-nil, is the per-request SLO results.LoadStats.Goodput counts
	// against.
	Goodput *results.GoodputSLO
}

// Requests computes the results.LoadStats of samples collected over duration
// (reference: compute_summary_stats per metric, extended with vLLM's
// percentiles and throughputs). Samples of kind "dropped" count as Dropped,
// not as Requests. Run-level fields (Mode, PeakInFlight, Unsent, Late) are
// left zero; Run fills them.
func Requests(samples []loadgen.Sample, duration time.Duration, opts Options) results.LoadStats {
	var ttft, ttfo, tpot, itl, e2el, gen, lag []float64
	s := results.LoadStats{Duration: duration, Errors: map[results.ErrorKind]int{}, GoodputSLO: opts.Goodput}
	for _, x := range samples {
		if x.Kind == results.KindDropped {
			s.Dropped++
			s.Errors[results.KindDropped]++
			continue
		}
		s.Requests++
		lag = append(lag, ms(x.Lag))
		if !x.OK() {
			s.Failed++
			kind := x.Kind
			if kind == "" {
				kind = loadgen.Classify(x.Err)
			}
			s.Errors[kind]++
			// A request that streamed its answer and only failed a
			// quality check was measured all the same: its timings
			// count, as in the payload summary (one definition).
			if kind != results.KindQuality {
				continue
			}
		} else {
			s.Succeeded++
		}
		s.OutputTokens += x.CompletionTokens
		ttft = append(ttft, x.TTFTms)
		e2el = append(e2el, x.E2ELms)
		if x.HasOutput {
			ttfo = append(ttfo, x.TTFOms)
		}
		if x.CompletionTokens >= 2 {
			if !stats.DecodeTimed(x.TPOTms, x.GenTPS) {
				// One chunk or a burst: no decode span to time
				// (stream.DecodeObservable); left out and counted.
				s.DecodeSkipped++
			} else {
				tpot = append(tpot, x.TPOTms)
				gen = append(gen, x.GenTPS)
			}
		}
		itl = append(itl, x.ITLms...)
	}
	p := opts.Percentiles
	s.TTFT, s.TTFO, s.TPOT = results.NewDist(ttft, p...), results.NewDist(ttfo, p...), results.NewDist(tpot, p...)
	s.ITL, s.E2EL, s.GenTPS, s.Lag = results.NewDist(itl, p...), results.NewDist(e2el, p...), results.NewDist(gen, p...), results.NewDist(lag, p...)
	if secs := duration.Seconds(); secs > 0 {
		s.RequestThroughput = float64(s.Succeeded) / secs
		s.OutputThroughput = float64(s.OutputTokens) / secs
	}
	if total := s.Requests + s.Dropped; total > 0 {
		s.ErrorRate = float64(s.Failed+s.Dropped) / float64(total)
	}
	if opts.Goodput != nil {
		s.Goodput = Goodput(samples, duration, *opts.Goodput)
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MetSLO reports whether s succeeded and stayed within every limit (a limit
// is met when the value is <= it, as in vLLM). TPOT is only checked for
// requests with >= 2 completion tokens.
func MetSLO(slo results.GoodputSLO, s loadgen.Sample) bool {
	if !s.OK() {
		return false
	}
	if slo.TTFTms > 0 && s.TTFTms > slo.TTFTms {
		return false
	}
	if slo.TPOTms > 0 && s.CompletionTokens >= 2 && s.TPOTms > slo.TPOTms {
		return false
	}
	if slo.E2ELms > 0 && s.E2ELms > slo.E2ELms {
		return false
	}
	return true
}

// Goodput returns the requests per second of duration that met slo
// (DistServe's goodput); 0 when duration is not positive.
func Goodput(samples []loadgen.Sample, duration time.Duration, slo results.GoodputSLO) float64 {
	if duration <= 0 {
		return 0
	}
	n := 0
	for _, s := range samples {
		if s.Kind != results.KindDropped && MetSLO(slo, s) {
			n++
		}
	}
	return float64(n) / duration.Seconds()
}

// Run is the results.LoadStats of a load run (Requests over its samples
// and duration) with the run-level counts: mode, peak in flight, unsent
// and late requests.
func Run(r *loadgen.Run, opts Options) results.LoadStats {
	s := Requests(r.Samples, r.Duration, opts)
	s.Mode = r.Mode
	s.PeakInFlight = r.PeakInFlight
	s.Unsent = r.Unsent
	s.Late = r.Late
	return s
}

// RunGoodput is the rate of r's requests that met slo (MetSLO): those
// requests per second of the run's wall span, first send to last end
// (vLLM's request_goodput, as loadgen.Run.Throughput counts the
// succeeded ones); ok false, with the reason, when the throughput is not
// measured.
func RunGoodput(r *loadgen.Run, slo results.GoodputSLO) (rate float64, ok bool, reason string) {
	met := 0
	for _, s := range r.Samples {
		if s.Kind != results.KindDropped && MetSLO(slo, s) {
			met++
		}
	}
	return stats.Throughput(met, r.Sent, r.WallSpan())
}
