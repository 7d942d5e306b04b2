// Package runner is benchserve's one engine: where a run is described,
// executed and recorded, whichever door it came through (the go test
// plugin, package benchtest, or the CLI, cmd/benchserve).
//
//   - Described: Config is the server (URL, API key, HTTP client, the one
//     timeout convention: 0 = DefaultRequestTimeout, negative = none) and
//     how to record (scrapes, content). New connects: it normalizes the
//     URL, builds the HTTP client (NewHTTPClient), detects the runtime and
//     the model, and says why when it cannot (unreachable, HTTP 401, no
//     model listed).
//   - Executed: Start resolves a workload run (repetitions, cache policy,
//     tags, SLO thresholds) into a Session of Jobs; Session.Execute sends
//     one job (a go test subtest does this), Session.RunAll sends them all,
//     N in flight. RunCase is one request: the /metrics scrapes around it
//     (bounded by SideRequestTimeout), the stream, the quality checks.
//     Session.RunRound sends a round of jobs measured as a whole (a prompt
//     sweep's point, a benchmark iteration: N at once, or an open loop at a
//     rate) with one bounded scrape before and after it; Session.RunLoad
//     sends the cases as load. The load generator (package loadgen) only
//     schedules: the function it calls is the session's.
//   - Recorded: each job becomes a results.Record with the reference's keys
//     (reference: run_workload_case, _build_workload_record,
//     run_bench_serve_workload); Session.Payload is the payload with its
//     summary and SLO outcomes, computed from the same records by one
//     statistics definition (package stats), so the summary, the SLO
//     verdicts, the CLI's lines and the report agree.
//
// It knows nothing about testing.T or flags.
package runner
