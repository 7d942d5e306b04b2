package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/results"
)

// outputFormat resolves --format auto: from --output's extension when it
// names a results format (results.FormatForPath: .db/.sqlite/.sqlite3 →
// sqlite, .csv, .sql, .txt/.table → table, .json; a benchserve departure:
// the reference writes JSON whatever the name), else modeDefault (json for
// workloads, table for sweeps, as the reference).
func outputFormat(format, output, modeDefault string) string {
	if format != "auto" {
		return format
	}
	switch f := results.FormatForPath(output); f {
	case "", results.FormatHTML:
		return modeDefault
	default:
		return f
	}
}

func writeWorkload(e *env, p *results.Payload, format, output string) int {
	return writeOutput(e, format, output, outputMessages{sqlite: "Workload SQLite results written to %s\n", file: "Workload results written to %s\n"},
		func() error { return history.AppendPayload(p, output) },
		func() ([]byte, error) { return results.Format(p, format) },
		func() ([]byte, error) { return results.FormatJSON(p) })
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
		if err := results.WriteFileAtomic(output, data, 0o644); err != nil {
			return keepResults(e, output, err, asJSON)
		}
		fmt.Fprintf(e.stderr, msg.file, output)
		return ExitOK
	}
	fmt.Fprint(e.stderr, msg.beforeStdout)
	fmt.Fprintf(e.stdout, "%s\n", data)
	return ExitOK
}

// keepResults reports writeErr, then writes asJSON's rendering of the
// measured results to fallbackPath and says where; it returns ExitFailed.
func keepResults(e *env, output string, writeErr error, asJSON func() ([]byte, error)) int {
	fmt.Fprintf(e.stderr, "benchserve: writing the results failed: %v\n", writeErr)
	data, err := asJSON()
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: the measured results are lost: %v\n", err)
		return ExitFailed
	}
	path, err := writeFallback(output, data)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: the measured results are lost: %v\n", err)
		return ExitFailed
	}
	fmt.Fprintf(e.stderr, "benchserve: the measured results were kept as JSON in %s\n", path)
	return ExitFailed
}

// writeFallback writes data next to output as "<output>.partial.json", or
// "<output>.partial-N.json" with the first N from 2 whose file does not
// exist yet (created exclusively: a fallback never replaces an earlier
// run's), or, when that fails or output is "", to a new
// "benchserve-<name>-*.partial.json" in os.TempDir(); it returns the path
// written.
func writeFallback(output string, data []byte) (string, error) {
	var errs []error
	if output != "" {
		base := paths.ExpandHome(output)
		for n := 1; n <= 1000; n++ {
			path := base + ".partial.json"
			if n > 1 {
				path = fmt.Sprintf("%s.partial-%d.json", base, n)
			}
			err := writeNew(path, data)
			if err == nil {
				return path, nil
			}
			if !errors.Is(err, fs.ErrExist) {
				errs = append(errs, err)
				break
			}
		}
	}
	name := strings.Map(func(r rune) rune {
		if r == '*' || r == os.PathSeparator || r == '/' {
			return '_'
		}
		return r
	}, filepath.Base(output))
	if output == "" {
		name = "results"
	}
	fh, err := os.CreateTemp("", "benchserve-"+name+"-*.partial.json")
	if err != nil {
		return "", errors.Join(append(errs, err)...)
	}
	_, err = fh.Write(data)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(fh.Name())
		return "", errors.Join(append(errs, err)...)
	}
	return fh.Name(), nil
}

// writeNew creates path (failing with fs.ErrExist when it exists) and
// writes data to it; a failed write removes the partial file.
func writeNew(path string, data []byte) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = fh.Write(data)
	if serr := fh.Sync(); err == nil {
		err = serr
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

func writeSweep(e *env, rows []results.SweepResult, format, output string) int {
	return writeOutput(e, format, output, outputMessages{sqlite: "\nSQLite results written to %s\n", file: "\nResults written to %s\n", beforeStdout: "\n"},
		func() error { return history.AppendSweep(rows, output) },
		func() ([]byte, error) { return results.FormatSweep(rows, format) },
		func() ([]byte, error) { return results.FormatSweep(rows, "json") })
}
