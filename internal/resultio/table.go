package resultio

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchserve/benchserve/internal/py"
)

// cellType is tabulate's column type lattice: none < bool < int < float < str.
type cellType int

const (
	typeNone cellType = iota
	typeBool
	typeInt
	typeFloat
	typeStr
)

// tabType classifies one cell as tabulate's _type does (numparse on):
// nil and "" are none, bools and "True"/"False" bool, ints and int-looking
// strings int, floats and float-looking strings float, the rest str.
func tabType(v any) cellType {
	switch x := v.(type) {
	case nil:
		return typeNone
	case bool:
		return typeBool
	case int, int64:
		return typeInt
	case float64:
		return typeFloat
	case string:
		switch {
		case x == "":
			return typeNone
		case x == "True" || x == "False":
			return typeBool
		case pyIsInt(x):
			return typeInt
		case pyIsFloat(x):
			return typeFloat
		}
	}
	return typeStr
}

// pyIsInt reports whether Python's int(s) accepts s (decimal, optional
// sign and surrounding whitespace).
func pyIsInt(s string) bool {
	_, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return err == nil
}

// pyIsFloat reports whether Python's float(s) accepts s.
func pyIsFloat(s string) bool {
	t := strings.TrimSpace(s)
	if strings.ContainsAny(t, "xXpP_") {
		return false // hex floats and underscores: Go and Python differ
	}
	_, err := strconv.ParseFloat(t, 64)
	return err == nil || strings.Contains(err.Error(), "value out of range")
}

// tabFormat renders one cell as tabulate's _format does for its column
// type (floatfmt "g", missing values "").
func tabFormat(v any, t cellType) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		if t == typeFloat {
			return py.FormatG(float64(x))
		}
		return strconv.Itoa(x)
	case int64:
		if t == typeFloat {
			return py.FormatG(float64(x))
		}
		return strconv.FormatInt(x, 10)
	case float64:
		if t == typeFloat || t == typeInt {
			return py.FormatG(x)
		}
		return py.FloatRepr(x)
	case string:
		if t == typeFloat {
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return py.FormatG(f)
			}
		}
		return x
	}
	return ""
}

// afterPoint is tabulate's _afterpoint: digits after the decimal point (or
// after the exponent mark), -1 for integers and non-numbers.
func afterPoint(s string) int {
	if s == "" || !pyIsFloat(s) || pyIsInt(s) {
		return -1
	}
	pos := strings.LastIndex(s, ".")
	if pos < 0 {
		pos = strings.LastIndex(strings.ToLower(s), "e")
	}
	if pos < 0 {
		return -1
	}
	return len(s) - pos - 1
}

func width(s string) int { return utf8.RuneCountInString(s) }

// tabulateSimple renders rows as tabulate(rows, headers, tablefmt="simple")
// does: a header row, a dash rule under each column, the rows; columns
// separated by two spaces, each at least two wider than its header;
// numeric columns (int, float) decimal-aligned and right-aligned with
// right-aligned headers, other columns stripped and left-aligned. Lines are
// right-stripped and joined by "\n" with no trailing newline; cells are kept on one line
// (tabulate's multi-line cells are not reproduced).
func tabulateSimple(headers []string, rows [][]any) string {
	ncol := len(headers)
	cols := make([][]string, ncol)
	aligned := make([]bool, ncol) // true = numeric (decimal/right)
	widths := make([]int, ncol)
	for c := range ncol {
		t := typeNone
		for _, r := range rows {
			t = max(t, tabType(r[c]))
		}
		numeric := t == typeInt || t == typeFloat
		aligned[c] = numeric
		cells := make([]string, len(rows))
		for i, r := range rows {
			cells[i] = tabFormat(r[c], t)
		}
		if numeric {
			maxDec := -1
			decs := make([]int, len(cells))
			for i, s := range cells {
				decs[i] = afterPoint(s)
				maxDec = max(maxDec, decs[i])
			}
			for i := range cells {
				cells[i] += strings.Repeat(" ", maxDec-decs[i])
			}
		} else {
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
		}
		w := width(headers[c]) + 2
		for _, s := range cells {
			w = max(w, width(s))
		}
		widths[c] = w
		cols[c] = cells
	}
	pad := func(s string, w int, right bool) string {
		fill := strings.Repeat(" ", max(0, w-width(s)))
		if right {
			return fill + s
		}
		return s + fill
	}
	lines := make([]string, 0, len(rows)+2)
	cells := make([]string, ncol)
	for c := range ncol {
		cells[c] = pad(headers[c], widths[c], aligned[c])
	}
	// tabulate's _build_simple_row right-strips every line.
	join := func() string { return strings.TrimRight(strings.Join(cells, "  "), " ") }
	lines = append(lines, join())
	for c := range ncol {
		cells[c] = strings.Repeat("-", widths[c])
	}
	lines = append(lines, join())
	for i := range rows {
		for c := range ncol {
			cells[c] = pad(cols[c][i], widths[c], aligned[c])
		}
		lines = append(lines, join())
	}
	return strings.Join(lines, "\n")
}
