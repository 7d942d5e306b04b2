// Package sweep runs the prompt sweep of `benchserve` (the reference's
// `vllm-mlx bench-serve` without --workload): every combination of prompt
// set × concurrency × enable_thinking × extra body, repeated, each run a
// closed loop of Concurrency simultaneous streaming requests, aggregated
// into one results.SweepResult row (reference: run_bench_serve,
// expand_sweep, load_prompt_set, run_concurrent_requests,
// count_prompt_tokens). Run sends its requests through the one engine: a
// runner.Session on a *runner.Runner (the one description of the server:
// URL, key, client, timeouts, model), one Session.RunRound per point, so
// every request is judged, recorded, journaled and bounded as in a
// workload run, and a row is a view of its round's records (Row).
//
// Builtin prompt sets (short, medium, long, thinking) are embedded; any
// other name is a file path in the flat or multi-message format (see
// LoadPromptSet). Output formatting is left to package results
// (FormatSweep) and package history (AppendSweep).
package sweep
