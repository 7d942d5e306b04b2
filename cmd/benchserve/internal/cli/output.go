package cli

import (
	"fmt"

	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// outputFormat resolves --format auto: from --output's extension when it
// names a results format (resultio.FormatForPath: .db/.sqlite/.sqlite3 →
// sqlite, .csv, .sql, .txt/.table → table, .json; a benchserve departure:
// the reference writes JSON whatever the name), else modeDefault (json for
// workloads, table for sweeps, as the reference). An --output whose
// extension names no format gets a note saying which one it is written
// in, so that "r.xml" holding JSON is no surprise.
func (e *env) outputFormat(format, output, modeDefault string) string {
	if format != "auto" {
		return format
	}
	switch f := resultio.FormatForPath(output); f {
	case "":
		if output != "" {
			e.note(fmt.Sprintf("--output %s: its extension names no results format (.json .csv .sql .txt/.table .db/.sqlite/.sqlite3); writing %s, as the reference does (--format picks another)", output, modeDefault))
		}
		return modeDefault
	case resultio.FormatHTML:
		e.note(fmt.Sprintf("--output %s: HTML is the report's format, not a results format; writing %s to it (write r.json and render it with: benchserve report r.json --output page.html)", output, modeDefault))
		return modeDefault
	default:
		return f
	}
}

func writeWorkload(e *env, p *results.Payload, format, output string) int {
	return writeOutput(e, format, output, outputMessages{sqlite: "Workload SQLite results written to %s\n", file: "Workload results written to %s\n"},
		func() error { return history.AppendPayload(p, output) },
		func() ([]byte, error) { return resultio.Format(p, format) },
		func() ([]byte, error) { return resultio.FormatJSON(p) })
}

// outputMessages are the reference's "written to" lines (they differ
// between workloads and sweeps).
type outputMessages struct {
	sqlite, file string
	// beforeStdout is printed to stderr before results go to stdout.
	beforeStdout string
}

// writeOutput writes results as the reference does: sqlite appends to
// --output; other formats go atomically to --output, else to stdout.
// When writing fails the measured results are kept: asJSON's rendering
// goes to a fallback file (see keepResults) and the status is ExitFailed.
func writeOutput(e *env, format, output string, msg outputMessages, sqlite func() error, render, asJSON func() ([]byte, error)) int {
	if format == "sqlite" {
		if err := sqlite(); err != nil {
			return keepResults(e, output, err, asJSON)
		}
		fmt.Fprintf(e.stderr, msg.sqlite, output)
		return ExitOK
	}
	data, err := render()
	if err != nil {
		return keepResults(e, output, err, asJSON)
	}
	if output != "" {
		if err := resultio.WriteFileAtomic(output, data, 0o644); err != nil {
			return keepResults(e, output, err, asJSON)
		}
		fmt.Fprintf(e.stderr, msg.file, output)
		return ExitOK
	}
	fmt.Fprint(e.stderr, msg.beforeStdout)
	e.printData(format, data)
	return ExitOK
}

// keepResults reports writeErr, then writes asJSON's rendering of the
// measured results next to output (resultio.KeepPartial) and says where;
// it returns ExitFailed.
func keepResults(e *env, output string, writeErr error, asJSON func() ([]byte, error)) int {
	fmt.Fprintf(e.stderr, "benchserve: writing the results failed: %s\n", explain(writeErr))
	data, err := asJSON()
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: the measured results are lost: %s\n", explain(err))
		return ExitFailed
	}
	path, err := resultio.KeepPartial(output, data)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: the measured results are lost: %s\n", explain(err))
		return ExitFailed
	}
	fmt.Fprintf(e.stderr, "benchserve: the measured results were kept as JSON in %s\n", path)
	return ExitFailed
}

func writeSweep(e *env, rows []results.SweepResult, format, output string) int {
	return writeOutput(e, format, output, outputMessages{sqlite: "\nSQLite results written to %s\n", file: "\nResults written to %s\n", beforeStdout: "\n"},
		func() error { return history.AppendSweep(rows, output) },
		func() ([]byte, error) { return resultio.FormatSweep(rows, format) },
		func() ([]byte, error) { return resultio.FormatSweep(rows, "json") })
}

// writePayloadFile writes p to path in the format its extension names
// (resultio.WriteFileOrKeep). When that fails it prints the error after
// "benchserve <cmd>: ", says where the measured results were kept as JSON
// (or that they are lost), and returns false.
func writePayloadFile(e *env, cmd string, p *results.Payload, path string) bool {
	kept, err, keepErr := resultio.WriteFileOrKeep(p, path)
	if err == nil {
		return true
	}
	fmt.Fprintf(e.stderr, "benchserve %s: writing the results failed: %s\n", cmd, explain(err))
	if keepErr != nil {
		fmt.Fprintf(e.stderr, "benchserve %s: the results could not be kept either: %s\n", cmd, explain(keepErr))
	} else {
		fmt.Fprintf(e.stderr, "benchserve %s: the results were kept as JSON in %s\n", cmd, kept)
	}
	return false
}
