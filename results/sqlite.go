package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	_ "modernc.org/sqlite" // pure-Go driver "sqlite"
)

// ErrInvalidIdentifier is matched (errors.Is) by every *IdentifierError.
var ErrInvalidIdentifier = errors.New("results: invalid SQLite identifier")

// IdentifierError is ValidateIdentifier's error. It prints like the
// reference's ValueError: `results: invalid SQLite column identifier: "Bad"`.
type IdentifierError struct {
	Kind       string // "table" or "column"
	Identifier string
}

// Error prints the reference message with the package prefix.
func (e *IdentifierError) Error() string {
	return fmt.Sprintf("results: invalid SQLite %s identifier: %q", e.Kind, e.Identifier)
}

// Is reports whether target is ErrInvalidIdentifier.
func (e *IdentifierError) Is(target error) bool { return target == ErrInvalidIdentifier }

var sqlIdentifierRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// ValidateIdentifier rejects table or column names that are unsafe to
// interpolate into SQL (reference: _validate_sql_identifier, pattern
// ^[a-z_][a-z0-9_]*$). kind ("table", "column") names the identifier in the
// *IdentifierError returned (errors.Is(err, ErrInvalidIdentifier)).
func ValidateIdentifier(identifier, kind string) error {
	if !sqlIdentifierRE.MatchString(identifier) {
		return &IdentifierError{Kind: kind, Identifier: identifier}
	}
	return nil
}

// WriteSQLite appends one row per record (RecordRow) to table
// bench_serve_workload of the SQLite database at path (reference:
// write_workload_sqlite), creating the file and the table
// (WorkloadSQLSchema) when missing. See WriteRows for the guarantees.
func WriteSQLite(p *Payload, path string) error {
	rows := make([][]any, 0, len(payloadResults(p)))
	for _, r := range payloadResults(p) {
		rows = append(rows, RecordRow(r))
	}
	return WriteRows(context.Background(), path, WorkloadTable, WorkloadSQLSchema, WorkloadResultColumns, rows)
}

// WriteRows appends rows (cells in columns order) to table in the SQLite
// database at path (reference: _write_sqlite_rows), through the pure-Go
// modernc.org/sqlite driver. A leading "~/" in path is expanded. Table and
// column names are checked with ValidateIdentifier before the file is
// touched. CREATE TABLE IF NOT EXISTS table (schema) and every INSERT run in
// one transaction: when any statement fails the transaction is rolled
// back, so the database holds all of the rows or none of them, and rows
// already in the table are never changed. NaN cells are stored as NULL
// (what SQLite does with a NaN REAL anyway); bools as 1/0.
func WriteRows(ctx context.Context, path, table, schema string, columns []string, rows [][]any) (err error) {
	if err := ValidateIdentifier(table, "table"); err != nil {
		return err
	}
	for _, c := range columns {
		if err := ValidateIdentifier(c, "column"); err != nil {
			return err
		}
	}
	path = expandHome(path)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return fmt.Errorf("results: sqlite %s: open: %w", path, err)
	}
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("results: sqlite %s: close: %w", path, cerr)
		}
	}()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "PRAGMA busy_timeout = 5000"); err != nil {
		return fmt.Errorf("results: sqlite %s: open: %w", path, err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("results: sqlite %s: begin: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err = tx.ExecContext(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", table, schema)); err != nil {
		return fmt.Errorf("results: sqlite %s: create table %s: %w", path, table, err)
	}
	if len(rows) > 0 {
		placeholders := strings.TrimSuffix(strings.Repeat("?, ", len(columns)), ", ")
		stmt, perr := tx.PrepareContext(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, strings.Join(columns, ", "), placeholders))
		if perr != nil {
			err = fmt.Errorf("results: sqlite %s: insert into %s: %w", path, table, perr)
			return err
		}
		defer stmt.Close()
		for i, row := range rows {
			if len(row) != len(columns) {
				err = fmt.Errorf("results: sqlite %s: row %d: %d values for %d columns", path, i, len(row), len(columns))
				return err
			}
			args := make([]any, len(row))
			for j, v := range row {
				args[j] = sqliteValue(v)
			}
			if _, err = stmt.ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("results: sqlite %s: insert row %d into %s: %w", path, i, table, err)
			}
		}
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("results: sqlite %s: commit: %w", path, err)
	}
	return nil
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
	if err := ValidateIdentifier(table, "table"); err != nil {
		return nil, err
	}
	path = expandHome(path)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("results: sqlite %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, fmt.Errorf("results: sqlite %s: open: %w", path, err)
	}
	defer db.Close()
	rs, err := db.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY rowid")
	if err != nil {
		return nil, fmt.Errorf("results: sqlite %s: select %s: %w", path, table, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, fmt.Errorf("results: sqlite %s: select %s: %w", path, table, err)
	}
	var out []map[string]any
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("results: sqlite %s: select %s: %w", path, table, err)
		}
		m := make(map[string]any, len(cols))
		for i, c := range cols {
			m[c] = vals[i]
		}
		out = append(out, m)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("results: sqlite %s: select %s: %w", path, table, err)
	}
	return out, nil
}

func expandHome(path string) string {
	if path == "~" || strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(path, "~"))
		}
	}
	return path
}
