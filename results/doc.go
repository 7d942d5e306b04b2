// Package results defines the workload results payload (the stable JSON
// contract shared with vllm-mlx bench-serve), its summaries, and its output
// formats: json, csv, sql, table and sqlite, for workload runs (Payload)
// and prompt sweeps (SweepResult).
//
// It ports the reference's compute_summary_stats, summarize_workload_results,
// _workload_record_to_row, format_workload_* / format_* and
// write_workload_sqlite / write_sqlite. Column lists and SQL schemas
// (WorkloadResultColumns, WorkloadSQLSchema, ResultColumns, SQLSchema) are
// the reference's, byte for byte, so existing SQLite histories and CSV
// consumers keep working; text outputs reproduce Python's rendering (float
// repr, csv.DictWriter quoting and "\r\n", tabulate's "simple" table,
// json.dumps separators and \uXXXX escapes).
//
// Departures from the reference, each documented where it happens:
//   - requests that failed (Record.Error != "") are left out of the
//     latency, TTFT and gen_tps statistics (the reference averages their 0 ms
//     in); they still count as samples and failures;
//   - JSON writes NaN/Inf as null (Python writes invalid JSON tokens);
//   - cache counters are null, not 0, when the server exposes none;
//   - tpot_ms and gen_tps time the decode over the tokens produced between
//     the first and the last token-bearing chunk (stream.MeasureDecode;
//     metrics.decode_tokens, decode_method), the reference's formulas are
//     kept as metrics.ref_tpot_ms and ref_gen_tps;
//   - tpot_ms, gen_tps and itl_ms are null (NaN in Go) with
//     metrics.decode_timing when the decode could not be timed, and
//     the summaries leave them out (gen_tps_skipped counts them);
//   - quality records reasoning, refusals, notes and, for n > 1, every
//     choice; a request error is the first issue, its consequences marked;
//   - SQLite writes are one transaction (all rows or none), and
//     WriteFileAtomic replaces output files by rename (never a symlink or
//     a device: those are written through);
//   - records of requests in flight when a run was stopped are marked
//     (MarkInterrupted) and left out of every summary statistic
//     (interrupted_count).
//
// A run keeps its finished records safe as they come in a Journal
// (JournalPath: "<output>.journal.jsonl"), one appended line per record,
// and writes its output once at the end; ReadJournal/ReadJournalPayload
// rebuild the payload of a run that was stopped (docs/guarantees.md).
//
// Everything here is pure data transformation except WriteSQLite,
// WriteSweepSQLite, WriteRows, ReadRows, WriteFileAtomic, WriteFile,
// ReadFileLimit and the Journal functions, which do I/O.
// Functions are safe for concurrent use on distinct inputs.
package results
