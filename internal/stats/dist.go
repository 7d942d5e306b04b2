package stats

import (
	"maps"
	"math"
	"slices"
	"time"
)

// DefaultPercentiles are the percentiles every Dist carries as fields.
var DefaultPercentiles = []float64{50, 90, 95, 99}

// Dist summarizes one metric's samples: count, mean, sample standard
// deviation, min, max, median and p50/p90/p95/p99 by the reference's
// linear interpolation (Compute and Percentile), plus
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
	// ordered holds the samples as given (measurement order), for
	// PercentileInterval's autocorrelation.
	ordered []float64
}

// NewDist summarizes values (not modified), computing the extra
// percentiles too.
func NewDist(values []float64, extra ...float64) Dist {
	st, err := Compute(values)
	if err != nil {
		nan := math.NaN()
		return Dist{Mean: nan, Stddev: nan, Min: nan, Max: nan, Median: nan,
			P50: nan, P90: nan, P95: nan, P99: nan}
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	d := Dist{
		Count: len(values), Mean: st.Mean, Stddev: st.Stddev, Min: st.Min, Max: st.Max,
		Median: st.P50, P50: st.P50, P90: Percentile(sorted, 90),
		P95: st.P95, P99: st.P99, sorted: sorted, ordered: slices.Clone(values),
	}
	if len(extra) > 0 {
		d.Extra = make(map[float64]float64, len(extra))
		for _, p := range extra {
			d.Extra[p] = Percentile(sorted, p)
		}
	}
	return d
}

// PercentileInterval is the confidence interval of the p-th percentile
// of the samples the Dist was built from (see the function
// PercentileInterval), at the two-sided confidence.
func (d Dist) PercentileInterval(p, confidence float64) Interval {
	return PercentileInterval(d.ordered, p, confidence)
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
	return Percentile(d.sorted, p)
}

// Stats is the summary of one run (what vLLM's bench serve and GuideLLM
// print). Latency distributions are in milliseconds and cover every
// request that was measured: those that succeeded and those whose answer
// streamed but failed a quality check (ErrorKind "quality"); a request
// that failed on the wire has no latency to report. The same records make
// the payload summary's statistics, so an SLO and the summary agree.
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
	// DecodeSkipped counts the measured requests with >= 2 tokens left
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

// ErrorKinds returns the kinds in s.Errors, sorted, for stable printing.
func (s Stats) ErrorKinds() []ErrorKind { return slices.Sorted(maps.Keys(s.Errors)) }

// RequestSLO is a per-request service level objective for goodput
// (DistServe; vLLM bench serve --goodput ttft:… tpot:… e2el:…): limits in
// milliseconds, 0 meaning no limit on that metric.
type RequestSLO struct {
	// TTFTms, TPOTms and E2ELms are the limits in ms; 0 means no limit.
	TTFTms, TPOTms, E2ELms float64
}
