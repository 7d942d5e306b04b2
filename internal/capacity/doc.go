// Package capacity answers the first question a serving team asks: how
// much load does this server take while staying within our SLOs?
//
// Search runs a bounded series of probes, each a short load run at one
// request rate (or concurrency) supplied by the caller as a ProbeFunc, and
// judges every probe by the SLO thresholds (stats.Threshold: "ttft_p95_ms
// <= 500", "tpot_p95_ms <= 50") plus a maximum error rate:
//
//  1. ramp: start at Config.Start and double until a probe fails or
//     Config.Max is reached;
//  2. bisect between the last passing and the first failing load until
//     they are within Config.Precision of each other (relative), or the
//     time cap Config.MaxTime passes.
//
// The capacity is the highest load that passed. Every probe is reported
// as it finishes (Config.OnProbe) and kept in Result.Probes with its
// verdict, the thresholds it failed with their measured values and its
// key statistics; Result marshals to capacity.json:
//
//	{"by": "rate", "capacity_rps": 12.5, "status": "found", "slos": [...],
//	 "probes": [{"rate": 8, "pass": true, "slos": [...], "stats": {...}}, ...]}
//
// LoadProbe builds a ProbeFunc from a loadgen.Func (one request), running an
// open loop (loadgen.RunOpen) per rate probe or a closed loop
// (loadgen.RunClosed) per concurrency probe.
//
// The package imports load and stats, never the runner: the engine that
// sends the requests (workload cases with their checks, prompt sets) is
// the caller's, behind the ProbeFunc.
package capacity
