package load

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/benchserve/benchserve/results"
)

// DefaultPercentiles are the percentiles every Dist carries as fields.
var DefaultPercentiles = []float64{50, 90, 95, 99}

// Dist summarizes one metric's samples: count, mean, sample standard
// deviation, min, max, median and p50/p90/p95/p99 by the reference's
// linear interpolation (results.ComputeStats and results.Percentile), plus
// any extra percentiles asked for. Units are those of the samples
// (milliseconds for latencies, tokens per second for GenTPS). With no
// samples every value is NaN and Count is 0.
type Dist struct {
	// Count is the number of samples.
	Count int
	// Mean, Stddev (sample, n − 1), Min and Max are in the samples' unit.
	Mean, Stddev, Min, Max float64
	// Median equals P50; P50…P99 are percentiles in the samples' unit.
	Median, P50, P90, P95, P99 float64
	// Extra holds the percentiles asked for in StatsOptions.Percentiles,
	// keyed by p (e.g. 99.9).
	Extra map[float64]float64

	sorted []float64
}

// NewDist summarizes values (not modified), computing the extra
// percentiles too.
func NewDist(values []float64, extra ...float64) Dist {
	st, err := results.ComputeStats(values)
	if err != nil {
		nan := math.NaN()
		return Dist{Mean: nan, Stddev: nan, Min: nan, Max: nan, Median: nan,
			P50: nan, P90: nan, P95: nan, P99: nan}
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	d := Dist{
		Count: len(values), Mean: st.Mean, Stddev: st.Stddev, Min: st.Min, Max: st.Max,
		Median: st.P50, P50: st.P50, P90: results.Percentile(sorted, 90),
		P95: st.P95, P99: st.P99, sorted: sorted,
	}
	if len(extra) > 0 {
		d.Extra = make(map[float64]float64, len(extra))
		for _, p := range extra {
			d.Extra[p] = results.Percentile(sorted, p)
		}
	}
	return d
}

// Percentile returns the p-th percentile (p in [0, 100]) of the samples
// the Dist was built from, by the same interpolation; NaN when empty.
func (d Dist) Percentile(p float64) float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	if v, ok := d.Extra[p]; ok {
		return v
	}
	return results.Percentile(d.sorted, p)
}

// StatsOptions tunes Summarize. The zero value works.
type StatsOptions struct {
	// Percentiles are extra percentiles (besides 50/90/95/99) to compute
	// for every Dist, e.g. 99.9.
	Percentiles []float64
	// Goodput, when non-nil, is the per-request SLO Stats.Goodput counts
	// against.
	Goodput *RequestSLO
}

// Stats is the summary of one run (what vLLM's bench serve and GuideLLM
// print). Latency distributions are in milliseconds and cover only
// requests that succeeded; a failed request has no latency to report.
type Stats struct {
	// Mode is "closed" or "open" ("" when built by Summarize alone).
	Mode string
	// Requests counts requests sent; Succeeded and Failed split them.
	Requests, Succeeded, Failed int
	// Dropped counts open-loop requests not sent because of the in-flight
	// cap (OverflowDrop); Unsent those never sent because the run ended;
	// Late those sent more than LateAfter behind schedule.
	Dropped, Unsent, Late int
	// Duration is the run's wall time.
	Duration time.Duration

	// TTFT: time to first token; TTFO: to first output (content or tool
	// call) over requests that had output; TPOT: per-request time per
	// output token over requests with >= 2 tokens; ITL: every gap between
	// token-bearing chunks of every request, pooled; E2EL: end-to-end
	// latency; GenTPS: per-request generation tokens/s (requests with >= 2
	// tokens); Lag: send time − scheduled time of every sent request.
	TTFT, TTFO, TPOT, ITL, E2EL, GenTPS, Lag Dist
	// DecodeSkipped counts the succeeded requests with >= 2 tokens left
	// out of TPOT, GenTPS (and ITL) because their decode span was not
	// observable: every token in one chunk, or every chunk within
	// stream.MinDecodeSpan (their rates are NaN, null in records).
	DecodeSkipped int

	// RequestThroughput is succeeded requests per second of Duration.
	RequestThroughput float64
	// OutputTokens is the completion tokens of the succeeded requests and
	// OutputThroughput those per second of Duration (summed over
	// concurrent streams).
	OutputTokens     int
	OutputThroughput float64
	// PeakInFlight is the most requests in flight at once.
	PeakInFlight int
	// Errors counts failed (and dropped) requests by kind.
	Errors map[ErrorKind]int
	// ErrorRate is (Failed + Dropped) / (Requests + Dropped), 0 for none.
	ErrorRate float64
	// Goodput is requests per second that succeeded and met every limit of
	// GoodputSLO (DistServe's goodput); 0 without a GoodputSLO.
	Goodput float64
	// GoodputSLO is the per-request SLO Goodput was counted against, nil
	// when none (StatsOptions.Goodput).
	GoodputSLO *RequestSLO
}

// Summarize computes the Stats of samples collected over duration
// (reference: compute_summary_stats per metric, extended with vLLM's
// percentiles and throughputs). Samples of kind "dropped" count as Dropped,
// not as Requests. Run-level fields (Mode, PeakInFlight, Unsent, Late) are
// left zero; Run.Stats fills them.
func Summarize(samples []Sample, duration time.Duration, opts StatsOptions) Stats {
	var ttft, ttfo, tpot, itl, e2el, gen, lag []float64
	s := Stats{Duration: duration, Errors: map[ErrorKind]int{}, GoodputSLO: opts.Goodput}
	for _, x := range samples {
		if x.Kind == KindDropped {
			s.Dropped++
			s.Errors[KindDropped]++
			continue
		}
		s.Requests++
		lag = append(lag, ms(x.Lag))
		if !x.OK() {
			s.Failed++
			kind := x.Kind
			if kind == "" {
				kind = Classify(x.Err)
			}
			s.Errors[kind]++
			continue
		}
		s.Succeeded++
		s.OutputTokens += x.CompletionTokens
		ttft = append(ttft, x.TTFTms)
		e2el = append(e2el, x.E2ELms)
		if x.HasOutput {
			ttfo = append(ttfo, x.TTFOms)
		}
		if x.CompletionTokens >= 2 {
			if math.IsNaN(x.TPOTms) || math.IsNaN(x.GenTPS) {
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
	s.TTFT, s.TTFO, s.TPOT = NewDist(ttft, p...), NewDist(ttfo, p...), NewDist(tpot, p...)
	s.ITL, s.E2EL, s.GenTPS, s.Lag = NewDist(itl, p...), NewDist(e2el, p...), NewDist(gen, p...), NewDist(lag, p...)
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

// ErrorKinds returns the kinds in s.Errors, sorted, for stable printing.
func (s Stats) ErrorKinds() []ErrorKind { return slices.Sorted(maps.Keys(s.Errors)) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// RequestSLO is a per-request service level objective for goodput
// (DistServe; vLLM bench serve --goodput ttft:… tpot:… e2el:…): limits in
// milliseconds, 0 meaning no limit on that metric.
type RequestSLO struct {
	// TTFTms, TPOTms and E2ELms are the limits in ms; 0 means no limit.
	TTFTms, TPOTms, E2ELms float64
}

// Met reports whether s succeeded and stayed within every limit (a limit
// is met when the value is <= it, as in vLLM). TPOT is only checked for
// requests with >= 2 completion tokens.
func (slo RequestSLO) Met(s Sample) bool {
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
func Goodput(samples []Sample, duration time.Duration, slo RequestSLO) float64 {
	if duration <= 0 {
		return 0
	}
	n := 0
	for _, s := range samples {
		if s.Kind != KindDropped && slo.Met(s) {
			n++
		}
	}
	return float64(n) / duration.Seconds()
}
