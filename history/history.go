package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	_ "modernc.org/sqlite" // pure-Go driver "sqlite"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// AppendPayload appends one row per record (RecordRow) to table
// bench_serve_workload of the SQLite database at path (reference:
// write_workload_sqlite), creating the file and the table
// (WorkloadSQLSchema) when missing. See WriteRows for the guarantees.
//
// A record already in the table (the same run_id, timestamp, case_id,
// repetition, ttft_ms and e2e_latency_ms: a run recovered or written
// twice into one history) is not appended again, so a history counts
// every request once (the reference appends blindly).
func AppendPayload(p *results.Payload, path string) error {
	_, err := AppendPayloadCount(p, path)
	return err
}

// recordIdentity are the columns that identify a record's row in a
// history: its run, case, repetition and measurements.
var recordIdentity = []string{"run_id", "timestamp", "case_id", "repetition", "ttft_ms", "e2e_latency_ms"}

// AppendPayloadCount is AppendPayload returning how many rows were
// already in the history and were skipped.
func AppendPayloadCount(p *results.Payload, path string) (skipped int, err error) {
	rows := make([][]any, 0, len(p.Results))
	for _, r := range p.Results {
		rows = append(rows, resultio.RecordRow(r))
	}
	return writeRows(context.Background(), path, resultio.WorkloadTable, resultio.WorkloadSQLSchema, resultio.WorkloadResultColumns, rows, recordIdentity)
}

// WriteRows appends rows (cells in columns order) to table in the SQLite
// database at path (reference: _write_sqlite_rows), through the pure-Go
// modernc.org/sqlite driver. path is used as it is (no "~" expansion: the
// doors do that). Table and column names are checked with ValidateIdentifier before the file is
// touched. CREATE TABLE IF NOT EXISTS table (schema) and every INSERT run in
// one transaction: when any statement fails the transaction is rolled
// back, so the database holds all of the rows or none of them, and rows
// already in the table are never changed. NaN cells are stored as NULL
// (what SQLite does with a NaN REAL anyway); bools as 1/0.
func WriteRows(ctx context.Context, path, table, schema string, columns []string, rows [][]any) (err error) {
	_, err = writeRows(ctx, path, table, schema, columns, rows, nil)
	return err
}

// writeRows is WriteRows; with identity (columns of columns) a row whose
// identity cells match (IS, so NULL matches NULL) a row already in the
// table is skipped and counted.
func writeRows(ctx context.Context, path, table, schema string, columns []string, rows [][]any, identity []string) (skipped int, err error) {
	if err := resultio.ValidateIdentifier(table, "table"); err != nil {
		return 0, err
	}
	for _, c := range columns {
		if err := resultio.ValidateIdentifier(c, "column"); err != nil {
			return 0, err
		}
	}
	idIdx := make([]int, len(identity))
	for i, c := range identity {
		idIdx[i] = slices.Index(columns, c)
		if idIdx[i] < 0 {
			return 0, fmt.Errorf("history: identity column %q is not a column of %s", c, table)
		}
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return skipped, fmt.Errorf("history: sqlite %s: open: %w", path, err)
	}
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("history: sqlite %s: close: %w", path, cerr)
		}
	}()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "PRAGMA busy_timeout = 5000"); err != nil {
		return skipped, fmt.Errorf("history: sqlite %s: open: %w", path, err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return skipped, fmt.Errorf("history: sqlite %s: begin: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err = tx.ExecContext(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", table, schema)); err != nil {
		return skipped, fmt.Errorf("history: sqlite %s: create table %s: %w", path, table, err)
	}
	if len(rows) > 0 {
		placeholders := strings.TrimSuffix(strings.Repeat("?, ", len(columns)), ", ")
		stmt, perr := tx.PrepareContext(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, strings.Join(columns, ", "), placeholders))
		if perr != nil {
			err = fmt.Errorf("history: sqlite %s: insert into %s: %w", path, table, perr)
			return skipped, err
		}
		defer stmt.Close()
		var exists *sql.Stmt
		if len(identity) > 0 {
			conds := make([]string, len(identity))
			for i, c := range identity {
				conds[i] = c + " IS ?"
			}
			exists, err = tx.PrepareContext(ctx, fmt.Sprintf("SELECT 1 FROM %s WHERE %s LIMIT 1", table, strings.Join(conds, " AND ")))
			if err != nil {
				return skipped, fmt.Errorf("history: sqlite %s: select from %s: %w", path, table, err)
			}
			defer exists.Close()
		}
		for i, row := range rows {
			if len(row) != len(columns) {
				err = fmt.Errorf("history: sqlite %s: row %d: %d values for %d columns", path, i, len(row), len(columns))
				return skipped, err
			}
			args := make([]any, len(row))
			for j, v := range row {
				args[j] = sqliteValue(v)
			}
			if exists != nil {
				key := make([]any, len(idIdx))
				for k, j := range idIdx {
					key[k] = args[j]
				}
				var one int
				switch qerr := exists.QueryRowContext(ctx, key...).Scan(&one); {
				case qerr == nil:
					skipped++
					continue
				case !errors.Is(qerr, sql.ErrNoRows):
					err = fmt.Errorf("history: sqlite %s: select from %s: %w", path, table, qerr)
					return skipped, err
				}
			}
			if _, err = stmt.ExecContext(ctx, args...); err != nil {
				return skipped, fmt.Errorf("history: sqlite %s: insert row %d into %s: %w", path, i, table, err)
			}
		}
	}
	if err = tx.Commit(); err != nil {
		return skipped, fmt.Errorf("history: sqlite %s: commit: %w", path, err)
	}
	return skipped, nil
}

// sqliteValue binds like Python's sqlite3: bools as integers, NaN as NULL.
func sqliteValue(v any) any {
	switch x := v.(type) {
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case float64:
		if math.IsNaN(x) {
			return nil
		}
	}
	return v
}

// ReadRows returns every row of table in the SQLite database at path, in
// rowid order, as maps keyed by column name (values as the driver returns
// them: int64, float64, string, []byte or nil). It is for reports and
// tests; the table name is checked with ValidateIdentifier. A missing file
// is an error (it is not created).
func ReadRows(ctx context.Context, path, table string) (_ []map[string]any, err error) {
	if err := resultio.ValidateIdentifier(table, "table"); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("history: sqlite %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, fmt.Errorf("history: sqlite %s: open: %w", path, err)
	}
	defer db.Close()
	rs, err := db.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY rowid")
	if err != nil {
		return nil, fmt.Errorf("history: sqlite %s: select %s: %w", path, table, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, fmt.Errorf("history: sqlite %s: select %s: %w", path, table, err)
	}
	var out []map[string]any
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("history: sqlite %s: select %s: %w", path, table, err)
		}
		m := make(map[string]any, len(cols))
		for i, c := range cols {
			m[c] = vals[i]
		}
		out = append(out, m)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("history: sqlite %s: select %s: %w", path, table, err)
	}
	return out, nil
}

// AppendSweep appends results to table bench_serve of the SQLite
// database at path (reference: write_sqlite), creating file and table
// (the reference's bench_serve schema) when missing, all rows in one
// transaction; see WriteRows.
func AppendSweep(rows []results.SweepResult, path string) error {
	return WriteRows(context.Background(), path, resultio.SweepTable, resultio.SQLSchema, resultio.ResultColumns, resultio.SweepRows(rows))
}

func init() { resultio.RegisterWriter(resultio.FormatSQLite, AppendPayload) }
