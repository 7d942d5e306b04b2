package resultio

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

func TestFormatForPath(t *testing.T) {
	for path, want := range map[string]string{
		"a.json": "json", "a.CSV": "csv", "a.sql": "sql", "a.txt": "table", "a.table": "table",
		"a.db": "sqlite", "a.sqlite": "sqlite", "a.sqlite3": "sqlite", "r.html": "html", "noext": "", "a.yaml": "",
	} {
		assert.Equalf(t, want, FormatForPath(path), "format of %s", path)
	}
}

// TestWriteFileOptInFormats: without the opt-in package linked, a .db or
// .html output is an error that names the import, and nothing is written.
func TestWriteFileOptInFormats(t *testing.T) {
	writersMu.Lock()
	saved := writers
	writers = map[string]PayloadWriter{}
	writersMu.Unlock()
	t.Cleanup(func() { writersMu.Lock(); writers = saved; writersMu.Unlock() })

	dir := t.TempDir()
	assert.ErrorContains(t, CheckWritable(filepath.Join(dir, "h.db")), "github.com/benchserve/benchserve/history", "checked before a run")
	assert.NoError(t, CheckWritable(filepath.Join(dir, "h.json")), "text formats need nothing")
	err := WriteFile(fixedPayload(), filepath.Join(dir, "h.db"))
	require.Error(t, err, "no SQLite writer is linked")
	assert.Contains(t, err.Error(), `import _ "github.com/benchserve/benchserve/history"`, "the error names the opt-in import")
	err = WriteFile(fixedPayload(), filepath.Join(dir, "r.html"))
	assert.ErrorContains(t, err, `import _ "github.com/benchserve/benchserve/report"`, "the error names the opt-in import")
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries, "nothing was written")

	var got string
	RegisterWriter(FormatSQLite, func(p *results.Payload, path string) error { got = path; return nil })
	require.NoError(t, WriteFile(fixedPayload(), filepath.Join(dir, "h.sqlite3")), "a registered writer handles its format")
	assert.Equal(t, filepath.Join(dir, "h.sqlite3"), got, "the writer got the path")

	require.NoError(t, WriteFile(fixedPayload(), filepath.Join(dir, "sub", "out.csv")), "text formats need no opt-in")
	data, err := os.ReadFile(filepath.Join(dir, "sub", "out.csv"))
	require.NoError(t, err, "csv written, parent created")
	assert.Equal(t, FormatCSV(fixedPayload()), data, "the csv format, by extension")
}
