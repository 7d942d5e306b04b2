package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// outputFormat resolves --format auto: from --output's extension when it
// names a results format (resultio.FormatForPath: .db/.sqlite/.sqlite3 →
// sqlite, .csv, .sql, .txt/.table → table, .json; a benchserve departure:
// the reference writes JSON whatever the name), else modeDefault (json for
// workloads, table for sweeps, as the reference).
func outputFormat(format, output, modeDefault string) string {
	if format != "auto" {
		return format
	}
	switch f := resultio.FormatForPath(output); f {
	case "", resultio.FormatHTML:
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
// measured results to fallbackPath and says where; it returns ExitFailed.
func keepResults(e *env, output string, writeErr error, asJSON func() ([]byte, error)) int {
	fmt.Fprintf(e.stderr, "benchserve: writing the results failed: %s\n", explain(writeErr))
	data, err := asJSON()
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: the measured results are lost: %s\n", explain(err))
		return ExitFailed
	}
	path, err := writeFallback(output, data)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: the measured results are lost: %s\n", explain(err))
		return ExitFailed
	}
	fmt.Fprintf(e.stderr, "benchserve: the measured results were kept as JSON in %s\n", path)
	return ExitFailed
}

// writeFallback writes data next to output as a new file
// "<output>.partial.json", or "<output>.partial.N.json" (N = 2, 3, …)
// when an earlier failed run's file has that name (it is never
// overwritten), or, when that fails or output is "", to a new
// "benchserve-<name>-*.partial.json" in os.TempDir(), and returns the
// path written.
func writeFallback(output string, data []byte) (string, error) {
	var errs []error
	if output != "" {
		path, err := writeNew(output, ".partial", ".json", data)
		if err == nil {
			return path, nil
		}
		errs = append(errs, err)
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

func writeSweep(e *env, rows []results.SweepResult, format, output string) int {
	return writeOutput(e, format, output, outputMessages{sqlite: "\nSQLite results written to %s\n", file: "\nResults written to %s\n", beforeStdout: "\n"},
		func() error { return history.AppendSweep(rows, output) },
		func() ([]byte, error) { return resultio.FormatSweep(rows, format) },
		func() ([]byte, error) { return resultio.FormatSweep(rows, "json") })
}

// writeNew writes data to a file that did not exist:
// base+mid+ext, else base+mid+".N"+ext for the first free N from 2.
func writeNew(base, mid, ext string, data []byte) (string, error) {
	for n := 1; n < 1000; n++ {
		path := base + mid + ext
		if n > 1 {
			path = fmt.Sprintf("%s%s.%d%s", base, mid, n, ext)
		}
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
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
			return "", fmt.Errorf("write %s: %w", path, err)
		}
		return path, nil
	}
	return "", fmt.Errorf("no free name for %s%s%s", base, mid, ext)
}
