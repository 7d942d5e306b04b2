package results

import (
	"time"
)

// CapacitySearch is what a capacity search looks for and how: the SLOs
// every passing probe holds, what it varies (the request rate or the
// concurrency) and the probes' size. The zero value of every field but
// SLOs has a default, given in its comment (the flags of `benchserve
// capacity`). A Capacity echoes it, defaults applied.
type CapacitySearch struct {
	// SLOs are the thresholds every passing probe holds with confidence
	// (ParseThreshold, e.g. "ttft_p95_ms <= 500"; --slo). A threshold with
	// no sample to measure (every request failed) fails. In a Capacity
	// they are every threshold the probes were judged by: the search's,
	// then the error-rate limit "error_rate <= MaxErrorRate".
	SLOs []Threshold
	// MaxErrorRate is the highest error rate a passing probe may have, in
	// [0, 1], checked as the threshold "error_rate <= MaxErrorRate"
	// (--max-error-rate); 0 tolerates no failed request.
	MaxErrorRate float64
	// By is what the search varies: "rate" (the default, also ""), the
	// open-loop request rate in requests per second, or "concurrency",
	// the number of streams of a closed loop, a whole number (--by).
	By string
	// Start is the first probe's load; 0 lets the search choose: a rate
	// search measures the server's service rate with a short closed-loop
	// burst and starts at half of it (Capacity.StartFrom says so), a
	// concurrency search starts at 1 stream. Max
	// bounds the ramp: a search whose probe at Max passes reports Max,
	// status "max_reached"; 0 means 1024 (--start, --max-rate).
	// Concurrency is rounded down to a whole number.
	Start, Max float64
	// ProbeRequests is the probe's target: the measured requests, after
	// the warm-up, at which its verdict is first looked at
	// (--probe-requests). 0 derives it from the SLOs: 5 requests beyond
	// the highest percentile (⌈5 / (1 − p)⌉: 100 for a p95), at least 50.
	// A probe whose interval then reaches across a threshold is extended
	// (the target doubled) up to Extensions times. ProbeDuration, when
	// set, raises a rate probe's target to ⌈rate × ProbeDuration⌉, and
	// bounds a concurrency probe by time instead (--probe-duration). A
	// concurrency probe's target is at least 8 requests per stream.
	ProbeRequests int
	ProbeDuration time.Duration
	// Extensions is how many times an inconclusive probe is extended; 0
	// means 3 (with Fit: as many as bring a probe to the fit's 200
	// measured requests, 1 for a p95), negative none (--extensions).
	Extensions int
	// MaxTime caps the whole search: no probe starts after it, and a
	// probe still running when it passes is cancelled and discarded; the
	// result is then the highest load that passed so far, status
	// "time_cap" (--max-time). 0 means no cap beyond the probe count,
	// which is bounded anyway.
	MaxTime time.Duration
	// Precision ends the bisection when (lowest failing − highest
	// passing) <= Precision × highest passing, in (0, 1); 0 means 0.1
	// (--precision). A concurrency search also ends when the two are
	// adjacent whole numbers.
	Precision float64
	// Fit, in a rate search whose binding threshold is a percentile,
	// estimates the capacity from a logistic fit of the share of requests
	// beyond the limit across the probes near the crossing, instead of
	// bisecting (--fit): every probe runs to at most 200 measured
	// requests (for a p95; twice the first look for a higher percentile),
	// the search sends at most 1,700 requests in all (scaled likewise),
	// and Capacity.Interval is Fieller's over the fit (method "fit"; the
	// bracket of the probes decided with confidence when Fieller's does
	// not close). Status "budget_spent" says the budget ran out before
	// the interval narrowed to Precision. A concurrency search refuses it.
	// In simulation it takes half the requests of bisecting with about
	// twice its median error and wider intervals (docs/benchmarks.md).
	Fit bool
}

// Capacity is what a capacity search found: the highest load at which
// every SLO holds, with its interval, how the search ended and every
// probe it ran. Its JSON is capacity.json (MarshalJSON).
type Capacity struct {
	// CapacitySearch is the search's settings, defaults applied (By
	// "rate" or "concurrency"; SLOs with the error-rate limit last).
	CapacitySearch
	// Capacity is the estimate of the highest load (req/s or streams) at
	// which every SLO holds and the error rate stays within MaxErrorRate:
	// where the binding threshold's measured value crosses its limit,
	// interpolated between the highest passing probe and the next probe
	// above it when they are within Precision (else the highest passing
	// load). 0 when no probe passed (Measured false; capacity.json writes
	// null).
	Capacity float64
	// Measured reports whether Capacity rests on a passing probe.
	Measured bool
	// Interval bounds the capacity (Confidence DefaultConfidence): Low is
	// the highest load whose probe passed with confidence (every
	// percentile's interval within its threshold), High the lowest whose
	// probe failed with confidence (an interval wholly beyond a threshold,
	// or saturated). An end no probe established is NaN: Low when none
	// passed, High when none failed with confidence. Low is what a floor
	// is checked against (AtLeast).
	Interval Interval
	// Status says how the search ended: "found" (the capacity lies
	// between the highest passing and the lowest failing load, within
	// Precision), "max_reached" (the probe at Max passed: the capacity is
	// at least Max), "first_probe_failed" (the probe at Start failed: the
	// capacity is below it, reported as 0), "time_cap" (MaxTime passed
	// first: the highest load that passed is a lower bound), "stopped"
	// (the caller's context ended or a probe failed to run),
	// "client_limited" (a probe's client could not keep up, its schedule
	// lag p99 or CPU past the limits a load run is judged by: that probe
	// is "invalid" and the highest load that passed below it is a lower
	// bound set by the client) or, for a
	// search that fits the crossing across its probes
	// (CapacitySearch.Fit), "budget_spent" (its request budget ran out before the
	// fit's interval narrowed to Precision: the capacity is the fit's
	// estimate, the interval as wide as it came out). Reason says
	// why it stopped, in a sentence, with the loads and the failing
	// thresholds.
	Status string
	Reason string
	// StartFrom says where the first probe's load came from when the
	// search chose it ("" when CapacitySearch.Start was given): the
	// service rate a short closed-loop burst measured, and the share of
	// it started at.
	StartFrom string
	// Elapsed is the search's wall time.
	Elapsed time.Duration
	// Probes are every probe run, in order.
	Probes []CapacityProbe
}

// CapacityProbe is one probe of a capacity search and its verdict.
type CapacityProbe struct {
	// Number is the probe's position in the search, from 1 (as the probe
	// lines print it); By ("rate" or "concurrency") and Load what it ran
	// (req/s or streams); Requests the most it was to send (0 for a timed
	// concurrency probe) and Duration its time bound (0 for a counted
	// one); Target the measured requests at its first look.
	Number   int
	By       string
	Load     float64
	Requests int
	Duration time.Duration
	Target   int
	// Verdict is how the probe ended: "pass" (every SLO held with
	// confidence: each percentile's interval within its threshold, and
	// the error rate within its limit), "fail" (some threshold failed
	// with confidence), "inconclusive" (an interval still reached across
	// its threshold after every extension) or "saturated" (arrivals
	// outran completions: the requests in flight and TTFT rose steadily,
	// so it was stopped early; a failure) or "invalid" (the client could
	// not keep up, Failed says how: neither a pass nor a failure, and the
	// search stops). Pass is Verdict == "pass".
	// PointPass reports whether every threshold held by its measured
	// value alone; the search steers by it where the verdict is
	// inconclusive (Leans).
	Verdict   string
	Pass      bool
	PointPass bool
	// Extended counts the extensions the probe ran to (0: decided at its
	// target).
	Extended int
	// Saturation says why the probe was called saturated ("" when not).
	Saturation string
	// Failed describes every threshold that did not pass with confidence,
	// with its measured value and interval ("ttft_p95_ms = 612.4, want <=
	// 500, 95% CI 580.2–650.9").
	Failed []string
	// SLOs are every threshold's outcome, in Capacity.SLOs order, a
	// percentile's with its interval; their Pass is ConfidentPass.
	SLOs []SLOResult
	// Summary holds the probe's key statistics over its measured
	// requests (capacity.json's "stats").
	Summary CapacityProbeStats
	// Stats are the measured requests' full statistics (not in the
	// JSON).
	Stats LoadStats
}

// CapacityProbeStats are a capacity probe's key statistics as capacity.json carries them,
// over its measured requests (the warm-up left out). A statistic with no
// sample behind it (no request succeeded) is null.
type CapacityProbeStats struct {
	// Sent counts every request the probe sent (or dropped), the warm-up
	// and those cut short when the search stopped it included; Warmup
	// and Measured split the complete ones; Cut counts the requests in
	// flight when the probe was stopped, left out.
	Sent     int `json:"sent"`
	Warmup   int `json:"warmup"`
	Measured int `json:"measured"`
	Cut      int `json:"cut"`
	// Requests counts the measured requests sent, Succeeded and Failed
	// split them; Dropped counts those the in-flight cap dropped, Late
	// those sent more than 1 ms behind schedule.
	Requests  int `json:"requests"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Dropped   int `json:"dropped"`
	Late      int `json:"late"`
	// DurationS is the probe's wall time in seconds (the run's).
	DurationS float64 `json:"duration_s"`
	// AchievedRate is the measured arrivals per second of their window
	// ((n − 1) / (last send − first send)); null for fewer than 2.
	AchievedRate *float64 `json:"achieved_rate"`
	// RequestThroughput is succeeded requests per second and
	// OutputThroughput completion tokens per second, over the measured
	// requests' window (first send to last end).
	RequestThroughput float64 `json:"request_throughput"`
	OutputThroughput  float64 `json:"output_throughput"`
	// ErrorRate is (failed + dropped) / (requests + dropped).
	ErrorRate float64 `json:"error_rate"`
	// TTFTp95ms, TPOTp95ms and E2ELp95ms are p95 latencies in ms over
	// the measured requests, TTFTp95CI the TTFT p95's interval (the one a
	// ttft_p95 SLO was judged by, when there is one); LagP99ms
	// is the p99 of the client's lag behind the schedule, in ms.
	TTFTp95ms *float64  `json:"ttft_p95_ms"`
	TTFTp95CI *Interval `json:"ttft_p95_ci"`
	TPOTp95ms *float64  `json:"tpot_p95_ms"`
	E2ELp95ms *float64  `json:"e2el_p95_ms"`
	LagP99ms  *float64  `json:"lag_p99_ms"`
	// Goodput is requests per second within the goodput SLO, null when
	// the search counted no goodput (no goodput SLO).
	Goodput *float64 `json:"goodput"`
	// PeakInFlight is the most requests in flight at once among the
	// measured ones.
	PeakInFlight int `json:"peak_in_flight"`
	// BusyCycles counts the measured window's busy cycles: the arrivals
	// that found the fewest requests in flight, and the returns of that
	// count to its 10th percentile after it rose to its median (a closed
	// loop, whose count stays put, has one per request). An open-loop
	// pass needs 10 of them.
	BusyCycles int `json:"busy_cycles"`
}
