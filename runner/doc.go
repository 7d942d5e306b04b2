// Package runner runs workload cases against a server and turns each into
// a results.Record: it scrapes cache counters before and after, streams the
// case's chat completion, evaluates its quality checks, and assembles the
// record with the reference's keys (reference: run_workload_case,
// _build_workload_record, run_bench_serve_workload).
//
// It is the engine shared by the go test plugin (package benchtest) and the
// CLI (cmd/benchserve); it knows nothing about testing.T.
package runner
