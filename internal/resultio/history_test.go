// The SQLite history (package history) of the formats' fixed payloads.
package resultio_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
)

func countRows(t *testing.T, path, table string) int {
	t.Helper()
	rows, err := history.ReadRows(context.Background(), path, table)
	require.NoError(t, err, "read %s from %s", table, path)
	return len(rows)
}

func TestWriteSQLiteAppendsAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	first := resultio.FixedPayload()
	require.NoError(t, history.AppendPayload(first, path), "first run creates file and table")

	second := resultio.FixedPayload()
	for i := range second.Results {
		second.Results[i].RunID = "run00002"
	}
	require.NoError(t, history.AppendPayload(second, path), "second run appends")

	rows, err := history.ReadRows(context.Background(), path, resultio.WorkloadTable)
	require.NoError(t, err, "read back")
	require.Len(t, rows, 6, "rows of both runs are present")
	assert.Equal(t, "abcd1234", rows[0]["run_id"], "first run's rows come first")
	assert.Equal(t, "run00002", rows[5]["run_id"], "second run's rows follow")

	r0 := rows[0]
	assert.Equal(t, "greet", r0["case_id"], "case id")
	assert.Equal(t, int64(1), r0["quality_ok"], "bools stored as 1")
	assert.Equal(t, int64(0), r0["request_enable_thinking"], "false stored as 0")
	assert.Equal(t, 950.25, r0["e2e_latency_ms"], "REAL column")
	assert.Equal(t, int64(2000), r0["policy_timeout_ms"], "INTEGER policy timeout")
	assert.Equal(t, `{"temperature": 0.2, "top_p": 1}`, r0["request_extra_body"], "extra body JSON text")
	assert.Equal(t, "It's \"café\", friend\nsee you", r0["content_preview"], "text stored verbatim")
	assert.Nil(t, rows[1]["cache_hits"], "null cache counters stored as NULL")
	assert.Nil(t, rows[2]["finish_reason"], "None finish_reason stored as NULL")

	cols := make([]string, 0, len(r0))
	for c := range r0 {
		cols = append(cols, c)
	}
	assert.ElementsMatch(t, resultio.WorkloadResultColumns, cols, "table has exactly the reference columns")
}

func TestWriteSQLiteFailedRunLeavesEarlierRowsAndNoPartialRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	require.NoError(t, history.AppendPayload(resultio.FixedPayload(), path), "first run")

	// A trigger makes the third row of the next run fail after two rows
	// were inserted inside the transaction.
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err, "open for trigger")
	_, err = db.Exec(`CREATE TRIGGER boom BEFORE INSERT ON bench_serve_workload
		WHEN NEW.run_id = 'bad' AND NEW.repetition = 1 BEGIN SELECT RAISE(ABORT, 'boom'); END`)
	require.NoError(t, err, "create trigger")
	require.NoError(t, db.Close(), "close")

	bad := resultio.FixedPayload()
	for i := range bad.Results {
		bad.Results[i].RunID = "bad"
	}
	err = history.AppendPayload(bad, path)
	require.Error(t, err, "the trigger must make the write fail")
	assert.Contains(t, err.Error(), "boom", "the driver error is wrapped")
	assert.Contains(t, err.Error(), "insert row 2", "the error names the failing row")

	rows, err := history.ReadRows(context.Background(), path, resultio.WorkloadTable)
	require.NoError(t, err, "read back")
	assert.Len(t, rows, 3, "only the first run's rows: the failed run was rolled back whole")
	for _, r := range rows {
		assert.Equal(t, "abcd1234", r["run_id"], "no row of the failed run survives")
	}
}

func TestWriteSQLiteIncompatibleExistingTableKeepsRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err, "open")
	_, err = db.Exec(`CREATE TABLE bench_serve_workload (run_id TEXT, note TEXT); INSERT INTO bench_serve_workload VALUES ('old', 'keep me')`)
	require.NoError(t, err, "seed an old-shaped table")
	require.NoError(t, db.Close(), "close")

	err = history.AppendPayload(resultio.FixedPayload(), path)
	require.Error(t, err, "inserting reference columns into an old-shaped table fails")
	rows, err := history.ReadRows(context.Background(), path, resultio.WorkloadTable)
	require.NoError(t, err, "read back")
	require.Len(t, rows, 1, "the existing row is untouched")
	assert.Equal(t, "keep me", rows[0]["note"], "existing data never lost")
}

func TestWriteSQLiteEmptyRunCreatesTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	require.NoError(t, history.AppendPayload(resultio.BuildPayload(resultio.PayloadInput{RunID: "x", Timestamp: "t"}), path), "empty payload")
	assert.Equal(t, 0, countRows(t, path, resultio.WorkloadTable), "table exists and is empty")
}

func TestWriteSweepSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.db")
	require.NoError(t, history.AppendSweep(resultio.FixedSweep(), path), "first sweep")
	require.NoError(t, history.AppendSweep(resultio.FixedSweep()[:1], path), "second sweep appends")
	rows, err := history.ReadRows(context.Background(), path, resultio.SweepTable)
	require.NoError(t, err, "read back")
	require.Len(t, rows, 3, "rows of both sweeps")
	assert.Nil(t, rows[0]["enable_thinking"], "unset enable_thinking is NULL")
	assert.Equal(t, int64(1), rows[1]["enable_thinking"], "true stored as 1")
	assert.Equal(t, int64(0), rows[1]["validated"], "failed config stored validated=0")
	assert.Equal(t, `{"top_k": 20}`, rows[1]["extra_body"], "extra body text")
	assert.Len(t, rows[0], len(resultio.ResultColumns), "bench_serve has the reference columns")
}

func TestIdentifierValidation(t *testing.T) {
	for _, ok := range []string{"bench_serve", "_x", "a1", "run_id"} {
		assert.NoErrorf(t, resultio.ValidateIdentifier(ok, "column"), "%q is a valid identifier", ok)
	}
	for _, bad := range []string{"", "Bench", "1abc", "a-b", "a b", "x;DROP TABLE y", `a"`, "tëst", "a\n"} {
		err := resultio.ValidateIdentifier(bad, "column")
		assert.Errorf(t, err, "%q must be rejected", bad)
		assert.Truef(t, errors.Is(err, resultio.ErrInvalidIdentifier), "%q: error must match resultio.ErrInvalidIdentifier", bad)
		var ie *resultio.IdentifierError
		if assert.ErrorAs(t, err, &ie, "error is an *resultio.IdentifierError") {
			assert.Equal(t, bad, ie.Identifier, "error carries the identifier")
		}
	}
	assert.EqualError(t, resultio.ValidateIdentifier("Bad", "table"), `results: invalid SQLite table identifier: "Bad"`, "message names kind and identifier")

	path := filepath.Join(t.TempDir(), "never.db")
	err := history.WriteRows(context.Background(), path, "bad-table", "x TEXT", []string{"x"}, nil)
	assert.ErrorIs(t, err, resultio.ErrInvalidIdentifier, "bad table name rejected")
	err = history.WriteRows(context.Background(), path, "ok", "x TEXT", []string{"x; --"}, nil)
	assert.ErrorIs(t, err, resultio.ErrInvalidIdentifier, "bad column name rejected")
	assert.NoFileExists(t, path, "nothing is created when identifiers are rejected")
}

func TestWriteRowsArityMismatchRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	err := history.WriteRows(context.Background(), path, "t", "a TEXT, b TEXT", []string{"a", "b"}, [][]any{{"1", "2"}, {"only"}})
	require.Error(t, err, "a short row is an error")
	_, err = history.ReadRows(context.Background(), path, "t")
	assert.Error(t, err, "the CREATE TABLE was rolled back with the rows")
}

// A run written into one history twice (recovered twice, or recovered
// after its output was written) is there once; a record of the run
// that was not there yet is added.
func TestWriteSQLiteDoesNotAppendARunTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	p := resultio.FixedPayload()
	part := *p
	part.Results = p.Results[:2]
	require.NoError(t, history.AppendPayload(&part, path), "the first two records")
	skipped, err := history.AppendPayloadCount(p, path)
	require.NoError(t, err, "the whole run")
	assert.Equal(t, 2, skipped, "the records already there are skipped")
	assert.Equal(t, len(p.Results), countRows(t, path, resultio.WorkloadTable), "every record once")
	require.NoError(t, history.AppendPayload(p, path), "again")
	assert.Equal(t, len(p.Results), countRows(t, path, resultio.WorkloadTable), "still every record once")
}
