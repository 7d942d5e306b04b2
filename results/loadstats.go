package results

import (
	"maps"
	"slices"
	"time"
)

// LoadStats are the statistics of one run or probe sent as load (what
// vLLM's bench serve and GuideLLM print): counts, latency distributions,
// throughputs, errors by kind and goodput; run-level thresholds are
// measured on them (Threshold.Evaluate). Latency distributions are in
// milliseconds and cover every request that was measured: those that
// succeeded and those whose answer streamed but failed a quality check
// (KindQuality); a request that failed on the wire has no latency to
// report. The same records make the payload summary's statistics, so an
// SLO and the summary agree.
type LoadStats struct {
	// Mode is "closed" or "open" ("" when not sent on a schedule).
	Mode string
	// Requests counts requests sent; Succeeded and Failed split them.
	Requests, Succeeded, Failed int
	// Dropped counts open-loop requests not sent because the in-flight
	// cap was reached (and the run drops, not waits); Unsent those never
	// sent because the run ended; Late those sent more than 1 ms behind
	// schedule.
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
	// observable: every token in one chunk, or every chunk within 1 ms
	// (their rates are NaN, null in records: Metrics.DecodeTiming).
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
	// when none.
	GoodputSLO *GoodputSLO
}

// ErrorKinds returns the kinds in s.Errors, sorted, for stable printing.
func (s LoadStats) ErrorKinds() []ErrorKind { return slices.Sorted(maps.Keys(s.Errors)) }

// GoodputSLO is a per-request service level objective for goodput
// (DistServe; vLLM bench serve --goodput ttft:… tpot:… e2el:…): limits in
// milliseconds, 0 meaning no limit on that metric.
type GoodputSLO struct {
	// TTFTms, TPOTms and E2ELms are the limits in ms; 0 means no limit.
	TTFTms, TPOTms, E2ELms float64
}

// ErrorKind classifies why a request failed; "" means it succeeded.
type ErrorKind string

// Error kinds reported in LoadStats.Errors.
const (
	// KindHTTP4xx: the server answered 4xx.
	KindHTTP4xx ErrorKind = "http_4xx"
	// KindHTTP5xx: the server answered 5xx.
	KindHTTP5xx ErrorKind = "http_5xx"
	// KindHTTPOther: any other non-2xx status.
	KindHTTPOther ErrorKind = "http_other"
	// KindServerError: an error reported inside a 200 stream.
	KindServerError ErrorKind = "server_error"
	// KindPolicyTimeout: the case's policy timeout (policy_timeout_ms) fired.
	KindPolicyTimeout ErrorKind = "policy_timeout"
	// KindTruncated: the stream ended without [DONE].
	KindTruncated ErrorKind = "truncated"
	// KindCanceled: the run's context ended (its duration cap or the
	// caller) while the request was in flight.
	KindCanceled ErrorKind = "canceled"
	// KindInterrupted: the run was stopped (Ctrl-C, SIGTERM, go test
	// -timeout) while the request was in flight; the request has no
	// measurement and is kept out of statistics (see
	// MarkInterrupted). Unlike KindCanceled, which a run's own
	// duration cap causes, it says the run did not finish.
	KindInterrupted ErrorKind = "interrupted"
	// KindTransport: anything else (connection refused, reset, bad JSON…).
	KindTransport ErrorKind = "transport"
	// KindQuality: the request streamed without error but its answer
	// failed a quality check (set by callers that check answers, such as
	// package benchtest).
	KindQuality ErrorKind = "quality"
	// KindDropped: an open-loop request never sent because the in-flight
	// cap was reached and the run drops what it cannot send.
	KindDropped ErrorKind = "dropped"
)
