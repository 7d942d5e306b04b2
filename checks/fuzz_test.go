package checks

import (
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzCompilePattern checks that translation never panics, that every
// failure is a *PatternError, and that a compiled pattern can be matched.
func FuzzCompilePattern(f *testing.F) {
	for _, seed := range []string{
		`def `, `(?x) a # c`, `[]a]`, `\Z`, `x{,3}`, `(?<=a)`, `(?P<n>a)(?P=n)`, `a*+`, `\777`, `[\b\0]`,
		`(?i-s:a(?x: b ))`, `\U0001F600`, `{`, `(?#`, `\`,
	} {
		f.Add(seed, "abc\ndef -> bool")
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		re, err := compilePattern(pattern)
		if err != nil {
			var pe *PatternError
			if !errors.As(err, &pe) {
				t.Fatalf("compilePattern(%q) error %v is %T, want *PatternError", pattern, err, err)
			}
			if pe.Offset > len(pattern) {
				t.Fatalf("compilePattern(%q) offset %d past the end", pattern, pe.Offset)
			}
			return
		}
		if !utf8.ValidString(pattern) {
			t.Fatalf("compilePattern(%q) accepted invalid UTF-8", pattern)
		}
		_ = re.MatchString(text)
		_ = re.FindAllStringIndex(text, -1)
	})
}

// FuzzPyJSONError checks that the CPython scanner port never panics, that
// its error position lies inside the document, and that every document it
// accepts is one encoding/json can then carry (pyJSONLoads succeeds).
func FuzzPyJSONError(f *testing.F) {
	for _, seed := range []string{
		`{"a": [1, 2.5e-3, NaN, -Infinity, "\ud800\udc00"]}`, `{bad`, `[1,]`, `"\u12`, "\"a\tb\"", `1e+`, `-`, "\ufeff{}", `{"a":1}x`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		err := pyJSONError(doc)
		if err == nil {
			if _, lerr := pyJSONLoads(doc); lerr != nil {
				t.Fatalf("pyJSONError(%q) accepts, but pyJSONLoads fails: %v", doc, lerr)
			}
			return
		}
		var pe *pyJSONDecodeError
		if !errors.As(err, &pe) || pe.Pos < 0 || pe.Pos > utf8.RuneCountInString(doc) || pe.Line < 1 || pe.Col < 1 {
			t.Fatalf("pyJSONError(%q) = %v: position out of range", doc, err)
		}
	})
}
