// Package resultio writes and reads what a run produces: the results
// payload (results.Payload) in the reference's output formats — json,
// csv, sql, table, and sqlite and html through writers the opt-in packages
// history and report register (RegisterWriter) — the prompt-sweep rows,
// the capacity search's result (FormatCapacity), the run's journal, and
// the merge of a sharded run's payloads. It is the one output layer of
// every door: results whose output cannot be written are kept as JSON
// (KeepPartial, WriteFileOrKeep), and inputs are read within a cap
// (ReadFileLimit; a journal line by line, each within MaxJournalLineBytes).
//
// It ports the reference's _workload_record_to_row, format_workload_* /
// format_* and write_workload_sqlite / write_sqlite. Column lists and SQL
// schemas (WorkloadResultColumns, WorkloadSQLSchema, ResultColumns,
// SQLSchema) are the reference's, byte for byte, so existing SQLite
// histories and CSV consumers keep working; text outputs reproduce
// Python's rendering (float repr, csv.DictWriter quoting and "\r\n",
// tabulate's "simple" table, json.dumps separators and \uXXXX escapes),
// on the rules of internal/py.
// Departures: JSON writes NaN/Inf as null (Python writes invalid JSON
// tokens); SQLite writes are one transaction (all rows or none), and
// WriteFileAtomic replaces output files by rename (never a symlink or a
// device: those are written through).
//
// A run keeps its finished records safe as they come in a Journal
// (JournalPath: "<output>.journal.jsonl"), one appended line per record,
// and writes its output once at the end; ReadJournal/ReadJournalPayload
// rebuild the payload of a run that was stopped (docs/guarantees.md).
package resultio
