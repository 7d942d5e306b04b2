package resultio

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/results"
)

// Formats are the text output formats of Format, in the order the CLI
// lists them. "sqlite" is not a text format: use WriteSQLite.
var Formats = []string{"json", "csv", "sql", "table"}

// ErrUnknownFormat is wrapped by Format for a format not in Formats.
var ErrUnknownFormat = errors.New("results: unknown format")

// Format renders p in one of Formats (reference: format_workload_payload).
// Any other format returns an error wrapping ErrUnknownFormat that lists
// the valid ones. Output carries no trailing newline except csv's final
// "\r\n" (the reference prints it with print()).
func Format(p *results.Payload, format string) ([]byte, error) {
	switch format {
	case "json":
		return FormatJSON(p)
	case "csv":
		return FormatCSV(p), nil
	case "sql":
		return FormatSQL(p), nil
	case "table":
		return FormatTable(p), nil
	}
	return nil, unknownFormat(format)
}

func unknownFormat(format string) error {
	return fmt.Errorf("%w %q: want one of %s", ErrUnknownFormat, format, strings.Join(Formats, ", "))
}

// FormatJSON renders the whole payload like json.dumps(payload, indent=2)
// (reference: format_workload_json): two-space indent, ", "/": "
// separators, non-ASCII escaped as \uXXXX, struct keys in reference order,
// floats in Python repr ("3.0"), no trailing newline. Departures forced by
// Go, all still valid JSON for any consumer of the reference: NaN and Inf
// (which Python writes as the invalid tokens NaN/Infinity) become null;
// Go maps (extra_body, defaults, …) are written with sorted keys; nil
// slices/maps are [] and {}. The error is non-nil only for values JSON
// cannot hold at all (e.g. a channel inside extra_body).
func FormatJSON(p *results.Payload) ([]byte, error) {
	return pyJSON(p, jsonOpts{indent: true})
}

// FormatCSV renders one row per record under a WorkloadResultColumns
// header (reference: format_workload_csv), exactly as Python's
// csv.DictWriter writes it; see writePyCSV.
func FormatCSV(p *results.Payload) []byte {
	recs := payloadResults(p)
	rows := make([][]any, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, RecordRow(r))
	}
	return writePyCSV(WorkloadResultColumns, rows)
}

// FormatSQL renders "CREATE TABLE IF NOT EXISTS bench_serve_workload
// (WorkloadSQLSchema);" and one "INSERT INTO bench_serve_workload VALUES
// (...);" per record, joined by "\n" (reference: format_workload_sql). Values
// are escaped by SQLLiteral.
func FormatSQL(p *results.Payload) []byte {
	recs := payloadResults(p)
	rows := make([][]any, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, RecordRow(r))
	}
	return formatSQL(WorkloadTable, WorkloadSQLSchema, rows)
}

// FormatTable renders the WorkloadTableColumns of every record as a
// tabulate "simple" table with floats rounded to one decimal (reference:
// format_workload_table): header, dashes, rows; two spaces between
// columns; numbers right-aligned on the decimal point, text left-aligned.
func FormatTable(p *results.Payload) []byte {
	idx := columnIndex(WorkloadResultColumns, WorkloadTableColumns)
	recs := payloadResults(p)
	rows := make([][]any, 0, len(recs))
	for _, r := range recs {
		full := RecordRow(r)
		rows = append(rows, pick(full, idx))
	}
	return []byte(tabulateSimple(WorkloadTableColumns, rows))
}

// payloadResults returns p.Results, nil for a nil payload (rendered as
// an empty run).
func payloadResults(p *results.Payload) []results.Record {
	if p == nil {
		return nil
	}
	return p.Results
}

// columnIndex returns the positions of want in all.
func columnIndex(all, want []string) []int {
	idx := make([]int, len(want))
	for i, w := range want {
		idx[i] = -1
		for j, a := range all {
			if a == w {
				idx[i] = j
				break
			}
		}
	}
	return idx
}

// pick selects the cells at idx, rounding floats to one decimal.
func pick(row []any, idx []int) []any {
	out := make([]any, len(idx))
	for i, j := range idx {
		v := row[j]
		if f, ok := v.(float64); ok {
			v = py.Round(f, 1)
		}
		out[i] = v
	}
	return out
}

func formatSQL(table, schema string, rows [][]any) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (%s);", table, schema)
	for _, row := range rows {
		vals := make([]string, len(row))
		for i, v := range row {
			vals[i] = SQLLiteral(v)
		}
		fmt.Fprintf(&b, "\nINSERT INTO %s VALUES (%s);", table, strings.Join(vals, ", "))
	}
	return []byte(b.String())
}

// SQLLiteral renders v as a SQL literal (reference: _sql_escape): nil →
// NULL, bools → 1/0, NaN and ±Inf → NULL, other floats as Python's str()
// ("12.5", "3.0", "1e-05"), integers in decimal, strings single-quoted
// with ' doubled, pointers dereferenced (nil → NULL). Anything else is
// formatted with %v and quoted as a string.
func SQLLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		if x {
			return "1"
		}
		return "0"
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "NULL"
		}
		return py.FloatRepr(x)
	case float32:
		return SQLLiteral(float64(x))
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case *bool:
		return SQLLiteral(optBool(x))
	case *string:
		return SQLLiteral(optString(x))
	case *int64:
		return SQLLiteral(optInt64(x))
	case *float64:
		if x == nil {
			return "NULL"
		}
		return SQLLiteral(*x)
	}
	return SQLLiteral(fmt.Sprint(v))
}

// pyCell renders a cell as Python's csv module writes it: None → "",
// bools "True"/"False", floats with repr ("3.0", "nan", "inf"), ints in
// decimal, strings unchanged.
func pyCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		return py.FloatRepr(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// writePyCSV writes header and rows as Python's csv.DictWriter with the
// default "excel" dialect does: "," separated, "\r\n" line ends, a field
// quoted (with " doubled) only when it contains ',', '"', '\r' or '\n'.
// encoding/csv is not used because it differs in two ways that break
// byte-for-byte output: it quotes fields that start with a space, and with
// UseCRLF it rewrites "\n" inside quoted fields to "\r\n". Its Reader
// reads this output back unchanged (see the tests).
func writePyCSV(header []string, rows [][]any) []byte {
	var b strings.Builder
	writeRow := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteByte(',')
			}
			if strings.ContainsAny(c, ",\"\r\n") {
				b.WriteByte('"')
				b.WriteString(strings.ReplaceAll(c, `"`, `""`))
				b.WriteByte('"')
			} else {
				b.WriteString(c)
			}
		}
		b.WriteString("\r\n")
	}
	writeRow(header)
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = pyCell(v)
		}
		writeRow(cells)
	}
	return []byte(b.String())
}
