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
		re, err := CompilePattern(pattern)
		if err != nil {
			var pe *PatternError
			if !errors.As(err, &pe) {
				t.Fatalf("CompilePattern(%q) error %v is %T, want *PatternError", pattern, err, err)
			}
			if pe.Offset > len(pattern) {
				t.Fatalf("CompilePattern(%q) offset %d past the end", pattern, pe.Offset)
			}
			return
		}
		if !utf8.ValidString(pattern) {
			t.Fatalf("CompilePattern(%q) accepted invalid UTF-8", pattern)
		}
		_ = re.MatchString(text)
		_ = re.FindAllStringIndex(text, -1)
	})
}
