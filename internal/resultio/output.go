package resultio

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/benchserve/benchserve/results"
)

// Output formats beyond the text Formats. They are written by a writer
// registered by an opt-in package, so that a test binary that does not ask
// for them links neither the SQLite driver nor the plotting stack:
//
//	import _ "github.com/benchserve/benchserve/history" // .db/.sqlite/.sqlite3
//	import _ "github.com/benchserve/benchserve/report"  // .html
const (
	// FormatSQLite appends the records to a SQLite history (package history).
	FormatSQLite = "sqlite"
	// FormatHTML renders the self-contained HTML report (package report).
	FormatHTML = "html"
)

// extFormats is the one extension → format table of benchserve: the CLI's
// --format auto, BENCHSERVE_OUTPUT, BENCHSERVE_REPORT and the report's
// inputs all read it through FormatForPath.
var extFormats = map[string]string{
	".json":    "json",
	".csv":     "csv",
	".sql":     "sql",
	".txt":     "table",
	".table":   "table",
	".db":      FormatSQLite,
	".sqlite":  FormatSQLite,
	".sqlite3": FormatSQLite,
	".html":    FormatHTML,
	".htm":     FormatHTML,
}

// FormatForPath returns the format path's extension names (case-insensitive):
// .json → json, .csv → csv, .sql → sql, .txt/.table → table,
// .db/.sqlite/.sqlite3 → sqlite, .html/.htm → html; "" for any other
// extension (callers default to json).
func FormatForPath(path string) string {
	return extFormats[strings.ToLower(filepath.Ext(path))]
}

// PayloadWriter writes a payload to path in one registered format.
type PayloadWriter func(p *results.Payload, path string) error

var (
	writersMu sync.RWMutex
	writers   = map[string]PayloadWriter{}
	// optIn names the import that registers each optional format.
	optIn = map[string]string{
		FormatSQLite: "github.com/benchserve/benchserve/history",
		FormatHTML:   "github.com/benchserve/benchserve/report",
	}
)

// RegisterWriter makes WriteFile handle format (FormatSQLite, FormatHTML)
// with w. Packages history and report call it from init; a later call for
// the same format replaces the earlier one.
func RegisterWriter(format string, w PayloadWriter) {
	writersMu.Lock()
	defer writersMu.Unlock()
	writers[format] = w
}

// CheckWritable reports, before a run, an output path whose format needs
// a writer that is not linked into this binary (.db without package
// history, .html without package report), with the import that adds it;
// nil otherwise.
func CheckWritable(path string) error {
	format := FormatForPath(path)
	if format != FormatSQLite && format != FormatHTML {
		return nil
	}
	writersMu.RLock()
	w := writers[format]
	writersMu.RUnlock()
	if w == nil {
		return fmt.Errorf("results: write %s: the %s format is not linked into this binary: add import _ %q to a _test.go file, or write JSON and convert it with the CLI (go tool benchserve)", path, format, optIn[format])
	}
	return nil
}

// WriteFile writes p to path in the format its extension names
// (FormatForPath; json for an unknown extension), creating missing parent
// directories. Text formats are written atomically (WriteFileAtomic);
// sqlite and html go through the writer registered for them, and when none
// is linked into the binary the error says which import adds it.
func WriteFile(p *results.Payload, path string) error {
	format := FormatForPath(path)
	if format == "" {
		format = "json"
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	switch format {
	case FormatSQLite, FormatHTML:
		writersMu.RLock()
		w := writers[format]
		writersMu.RUnlock()
		if w == nil {
			return fmt.Errorf("results: write %s: the %s format is not linked into this binary: add import _ %q to a _test.go file, or write JSON and convert it with the CLI (go tool benchserve)", path, format, optIn[format])
		}
		return w(p, path)
	}
	data, err := Format(p, format)
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, data, 0o644)
}
