// Package capacity answers the first question a serving team asks: how
// much load does this server take while staying within our SLOs?
//
// Search runs a bounded series of probes, each a load run at one request
// rate (or concurrency) supplied by the caller as a ProbeFunc, and judges
// every probe by the SLO thresholds (results.Threshold: "ttft_p95_ms <=
// 500", "tpot_p95_ms <= 50") plus a maximum error rate:
//
//  1. ramp: start at Config.Start and double until a probe does not pass
//     or Config.Max is reached; a rate search without a Start first
//     measures the service rate with a closed-loop burst (serviceRate: 16
//     streams, 64 requests), starts at half of it and steps by 1.5, down
//     when that first probe does not pass (Capacity.StartFrom);
//  2. bisect between the highest passing and the lowest not passing load
//     until they are within Config.Precision of each other (relative), or
//     the time cap Config.MaxTime passes; with Config.Fit (a rate search,
//     a percentile SLO binding) probe around the crossing instead and fit
//     it across the probes (fitSearch: a logistic regression of the share
//     of requests beyond the limit on the achieved rate, Fieller's
//     interval, MethodFit), until the interval is within the precision or
//     the request budget is spent (StatusBudgetSpent).
//
// Each probe is judged on its steady state, with confidence. The search
// watches it as it runs (Observer; Watch wraps a loadgen.Func): the
// warm-up is left out (until the requests in flight have built up, at
// least 10% of the arrivals and two service times); at its target of
// measured requests (5 beyond the SLOs' highest percentile: 100 for a
// p95) every percentile gets a 95% interval (results.Dist.PercentileInterval:
// binomial order statistics over the effective sample size); the probe
// passes when every interval lies within its threshold, fails when one
// lies beyond it, and is otherwise extended (twice the measured requests,
// Config.Extensions times) and then inconclusive, steering the search by
// its measured values. An open-loop probe whose arrivals outrun its
// completions is stopped early as saturated. A probe whose client could
// not keep up (its schedule lag p99 or CPU past Config.Client, the
// bounds a load run is judged by) is invalid and ends the search
// (StatusClientLimited): its figures measure the client. The search ends a probe by
// ending its context; requests cut short are left out.
//
// The result, a results.Capacity, gives the capacity (interpolated where
// the binding threshold crosses its limit) with its interval
// (Capacity.Interval: the highest load that passed with confidence to the
// lowest that failed with confidence), the reason the search stopped and
// every probe with its intervals (results.CapacityProbe.String prints a
// probe line, Capacity.Headline the capacity). It marshals to
// capacity.json:
//
//	{"capacity_rps": 10.3, "by": "rate", "interval": {"low": 10, "high": 11,
//	 "confidence": 0.95, "method": "…"}, "status": "found", "reason": "…",
//	 "slos": [...], "probes": [{"rate": 8, "number": 1, "verdict": "pass",
//	 "slos": [{"threshold": "…", "measured": 150.2, "pass": true,
//	 "ci": {"low": 140.1, "high": 171.3, …}, "conclusive": true}], "stats": {...}}, ...]}
//
// LoadProbe builds a ProbeFunc from a loadgen.Func (one request), running an
// open loop (loadgen.RunOpen) per rate probe or a closed loop
// (loadgen.RunClosed) per concurrency probe.
//
// The package imports loadgen and stats, never the runner: the engine
// that sends the requests (workload cases with their checks, prompt sets)
// is the caller's, behind the ProbeFunc (SessionProbe, on the engine's session).
package capacity
