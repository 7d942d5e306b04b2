// Package history appends runs to SQLite histories and reads them back,
// through the pure-Go modernc.org/sqlite driver: workload records to table
// bench_serve_workload (reference: write_workload_sqlite) and sweep rows to
// table bench_serve (reference: write_sqlite), each run in one transaction,
// with the reference's schemas, so existing histories keep growing.
//
// It is opt-in: the SQLite driver is large, so the go test plugin does not
// link it unless a test imports this package, which also registers the
// .db/.sqlite/.sqlite3 output of benchtest.WithOutput, BENCHSERVE_OUTPUT
// and the CLI's --output:
//
//	import _ "github.com/benchserve/benchserve/history"
package history
