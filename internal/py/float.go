package py

import (
	"math"
	"strconv"
	"strings"
)

// FloatRepr renders f as Python's repr(float) and str(float) do: the
// shortest decimal that round-trips, fixed notation with at least one
// fractional digit ("3.0", "12.5", "0.0001", "-0.0") while the decimal
// exponent is in [-4, 16), scientific otherwise ("1e-05", "1.5e+16"), and
// "nan", "inf", "-inf" for the special values (CPython's
// format_float_short in 'r' mode). Used wherever the reference stringifies
// a float: json.dumps, csv.DictWriter, _sql_escape, str() of a number.
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	// Go's shortest 'e' form has Python's two-digit exponent already.
	sci := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(sci[strings.IndexByte(sci, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return sci
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

// FormatG renders f as Python's format(f, "g"): six significant digits,
// trailing zeros dropped, scientific below 1e-4 and from 1e6 (how tabulate
// prints float cells); "nan", "inf", "-inf" for the special values.
func FormatG(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}
