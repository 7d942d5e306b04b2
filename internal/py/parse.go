package py

import (
	"errors"
	"strconv"
	"strings"
)

// ParseInt is Python's int(s) for a str: surrounding white space trimmed,
// an optional sign, decimal digits with single underscores only between
// them ("1_000"). ok is false where int() raises ValueError, and for a
// value outside int64 (which Python would hold).
func ParseInt(s string) (n int64, ok bool) {
	t, ok := stripDigitUnderscores(strings.TrimSpace(s))
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 64)
	return n, err == nil
}

// ParseFloat is Python's float(s) for a str: surrounding white space
// trimmed, decimal or scientific notation with underscores only between
// digits, "inf", "infinity" and "nan" in any case with an optional sign; a
// value beyond the float64 range is ±inf, as in Python. Hexadecimal forms,
// which Go's strconv accepts and Python's float() does not, are refused.
func ParseFloat(s string) (f float64, ok bool) {
	t, ok := stripDigitUnderscores(strings.TrimSpace(s))
	if !ok || t == "" || strings.ContainsAny(t, "xXpP") && !isInfOrNaNWord(t) {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// isInfOrNaNWord reports whether s is one of Python's float() words.
func isInfOrNaNWord(s string) bool {
	s = strings.ToLower(strings.TrimLeft(s, "+-"))
	return s == "inf" || s == "infinity" || s == "nan"
}

// stripDigitUnderscores removes underscores that sit between two digits and
// reports false when any underscore is elsewhere (Python's rule for
// numeric literals and int()/float() of a str).
func stripDigitUnderscores(s string) (string, bool) {
	if !strings.Contains(s, "_") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if i == 0 || i == len(s)-1 || !isDigit(s[i-1]) || !isDigit(s[i+1]) {
				return "", false
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
