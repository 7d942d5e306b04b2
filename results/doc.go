// Package results defines the results payload that benchserve writes and
// users read: the stable JSON contract shared with vllm-mlx bench-serve
// (Payload, one Record per request, RunSummary and CaseSummary), and the
// prompt-sweep row (SweepResult). Decode a payload file with
// encoding/json into a Payload; Summarize recomputes its summary from the
// records.
//
// It ports the reference's data shapes and compute_summary_stats /
// summarize_workload_results. Departures from the reference, each
// documented where it happens:
//   - requests that failed (Record.Error != "") are left out of the
//     latency, TTFT and gen_tps statistics (the reference averages their 0 ms
//     in); they still count as samples and failures;
//   - cache counters are null, not 0, when the server exposes none;
//   - tpot_ms and gen_tps time the decode over the tokens produced between
//     the first and the last token-bearing chunk (Metrics.DecodeTokens,
//     metrics.decode_tokens, decode_method), the reference's formulas are
//     kept as metrics.ref_tpot_ms and ref_gen_tps;
//   - tpot_ms, gen_tps and itl_ms are null (NaN in Go) with
//     metrics.decode_timing when the decode could not be timed, and
//     the summaries leave them out (gen_tps_skipped counts them);
//   - quality records reasoning, refusals, notes and, for n > 1, every
//     choice; a request error is the first issue, its consequences marked;
//   - metrics.connection_retries counts a request sent again on a fresh
//     connection because the server had closed the reused one without
//     answering (summed in summary.connection_retries);
//   - records of requests in flight when a run was stopped are marked
//     (MarkInterrupted) and left out of every summary statistic
//     (interrupted_count).
//
// It also holds the vocabulary every part of benchserve shares: the wire
// shapes of a chat completion (Message, ToolCall, Usage), the statistics
// of a run (Dist, LoadStats, Stats, Interval), run-level thresholds and
// their outcomes (Threshold, SLOResult, GoodputSLO, ErrorKind) and a
// capacity search's result (Capacity, capacity.json).
//
// The output formats (json, csv, sql, table, and the opt-in sqlite and
// html), the run's journal and the merge of shards are written by the
// engine behind benchtest.WithOutput and the CLI's --output; the opt-in
// packages history and report register the heavy writers. Everything here
// is pure data; functions are safe for concurrent use on distinct inputs.
package results
