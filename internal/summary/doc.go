// Package summary is the one path from measured requests to statistics
// and run-level verdicts, outside the load generator: the samples of a
// run (loadgen.Sample, one per request, carrying the engine's one verdict
// of its record) become results.LoadStats (Requests, Run; distributions,
// throughputs, errors by kind, goodput), and a payload's records the same
// (Payload), on which run-level thresholds are measured (Evaluate,
// EvaluatePayload). benchtest's benchmark metrics, the CLI's load and
// capacity figures and the SLO verdicts of every door are views of these.
package summary
