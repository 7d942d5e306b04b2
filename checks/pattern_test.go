package checks

import (
	"encoding/json"
	"errors"
	"os"
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompilePatternMatchesPython replays testdata/patterns.json, which
// testdata/gen_patterns.py produced with CPython's re.search(p, s, re.M).
func TestCompilePatternMatchesPython(t *testing.T) {
	data, err := os.ReadFile("testdata/patterns.json")
	require.NoError(t, err, "reading the Python ground-truth table")
	var cases []struct {
		Pattern string `json:"pattern"`
		Text    string `json:"text"`
		Match   bool   `json:"match"`
	}
	require.NoError(t, json.Unmarshal(data, &cases), "decoding testdata/patterns.json")
	require.Greater(t, len(cases), 100, "ground-truth table should not be empty")
	for _, c := range cases {
		re, err := compilePattern(c.Pattern)
		if !assert.NoErrorf(t, err, "pattern %q compiles in Python and must compile here", c.Pattern) {
			continue
		}
		assert.Equalf(t, c.Match, re.MatchString(c.Text),
			"re.search(%q, %q, re.M) is %v in Python (Go regexp %q)", c.Pattern, c.Text, c.Match, re.String())
	}
}

func TestTranslatePattern(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`def `, `(?m)def `},
		{`(?i)abc`, `(?mi)abc`},
		{`(?si)a.b`, `(?mis)a.b`},
		{`(?a)(?u)\w`, `(?m)\w`},
		{`abc\Z`, `(?m)abc\z`},
		{`x{,3}`, `(?m)x{0,3}`},
		{`a{`, `(?m)a\{`},
		{`[[:alpha:]]`, `(?m)[\[:alpha:]]`},
		{`[]a]`, `(?m)[\]a]`},
		{`[\b]`, `(?m)[\x{8}]`},
		{`\x41\u00e9\U0001F600`, `(?m)\x{41}\x{e9}\x{1f600}`},
		{`\0\101`, `(?m)\x{0}\x{41}`},
		{`(?x) a b # c`, `(?m)ab`},
		{`(?x)a\ b[ #]`, `(?m)a\x{20}b[ #]`},
		{`a(?#note)b`, `(?m)ab`},
		{`(?P<n>x)`, `(?m)(?P<n>x)`},
		{`(?i-s:x)`, `(?m)(?i-s:x)`},
		{`(?x:a b)c d`, `(?m)(?:ab)c d`},
		{`(?a:x)`, `(?m)(?:x)`},
		{`(?a)\s\S[\s,]`, `(?m)[\t-\r ][^\t-\r ][\t-\r ,]`},
		{`(?a)[\S]`, `(?m)[\x{0}-\x{8}\x{e}-\x{1f}!-\x{10ffff}]`},
		{`\d\D[\d]`, `(?m)\p{Nd}\P{Nd}[\p{Nd}]`},
		{`\w\W[\w]`, `(?m)[\p{L}\p{N}_][^\p{L}\p{N}_][\p{L}\p{N}_]`},
		{`(?a:\s)\s`, `(?m)(?:[\t-\r ])[\t-\r\x{1c}- \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`},
	} {
		got, err := translatePattern(tc.in)
		if assert.NoErrorf(t, err, "translatePattern(%q)", tc.in) {
			assert.Equalf(t, tc.want, got, "translatePattern(%q)", tc.in)
		}
	}
}

func TestCompilePatternRejects(t *testing.T) {
	for _, tc := range []struct {
		in, reason string
		offset     int
	}{
		{`(?<=a)b`, "lookbehind is not supported", 0},
		{`(?<!a)b`, "negative lookbehind is not supported", 0},
		{`a(?=b)`, "lookahead is not supported", 1},
		{`a(?!b)`, "negative lookahead is not supported", 1},
		{`(a)\1`, "backreferences are not supported", 3},
		{`(?P<q>')(?P=q)`, "backreferences are not supported", 8},
		{`(?>a+)b`, "atomic groups are not supported", 0},
		{`a*+`, "possessive quantifiers are not supported", 2},
		{`a++`, "possessive quantifiers are not supported", 2},
		{`a?+`, "possessive quantifiers are not supported", 2},
		{`a{1,2}+`, "possessive quantifiers are not supported", 6},
		{`(a)?(?(1)b|c)`, "conditional groups are not supported", 4},
		{`\N{EM DASH}`, `named Unicode escapes \N{...} are not supported`, 0},
		{`a(?i)b`, "global flags not at the start of the expression", 1},
		{`(a(?i))`, "global flags not at the start of the expression", 2},
		{`(?L)a`, "bad inline flag: cannot use 'L' flag with a str pattern", 0},
		{`(?au)a`, "bad inline flag: flags 'a', 'u' and 'L' are incompatible", 0},
		{`(?U)a`, "unknown extension ?U", 0},
		{`(?<name>a)`, "unknown extension ?<", 0},
		{`(?-a:x)`, "bad inline flag: cannot turn off flags 'a', 'u' and 'L'", 0},
		{`(?i-i:x)`, "bad inline flag: flag turned on and off", 0},
		{`(?-i)x`, "missing :", 0},
		{`\p{L}`, `bad escape \p`, 0},
		{`\Qa\E`, `bad escape \Q`, 0},
		{`\e`, `bad escape \e`, 0},
		{`[\A]`, `bad escape \A`, 1},
		{`[\8]`, `bad escape \8`, 1},
		{`\x4`, `incomplete escape \x4`, 0},
		{`\u12G4`, `incomplete escape \u12G4`, 0},
		{`\U00110000`, `bad escape \U00110000`, 0},
		{`\777`, `octal escape value \777 outside of range 0-0o377`, 0},
		{`abc\`, "bad escape (end of pattern)", 3},
		{`[abc`, "unterminated character set", 0},
		{`a)`, "unbalanced parenthesis", 1},
		{`(?#x`, "missing ), unterminated comment", 0},
		{`(?P<x`, "missing >, unterminated name", 0},
	} {
		re, err := compilePattern(tc.in)
		assert.Nilf(t, re, "compilePattern(%q) must fail", tc.in)
		var pe *PatternError
		if assert.Truef(t, errors.As(err, &pe), "compilePattern(%q) error %v must be a *PatternError", tc.in, err) {
			assert.Equalf(t, tc.reason, pe.Reason, "reason for %q", tc.in)
			assert.Equalf(t, tc.offset, pe.Offset, "offset for %q", tc.in)
			assert.Equalf(t, tc.in, pe.Pattern, "pattern echoed for %q", tc.in)
		}
	}
}

func TestCompilePatternRE2Errors(t *testing.T) {
	for _, tc := range []struct{ in, reason string }{
		{`*a`, "missing argument to repetition operator: `*`"},
		{`(a`, "missing closing ): `(?m)(a`"},
		{`x{1001}`, "invalid repeat count: `{1001}`"},
		{`[z-a]`, "invalid character class range: `z-a`"},
	} {
		_, err := compilePattern(tc.in)
		var pe *PatternError
		require.Truef(t, errors.As(err, &pe), "compilePattern(%q) must fail with a *PatternError, got %v", tc.in, err)
		assert.Equalf(t, tc.reason, pe.Reason, "reason for %q", tc.in)
		assert.Equalf(t, -1, pe.Offset, "RE2 errors have no offset (%q)", tc.in)
		var se *syntax.Error
		assert.Truef(t, errors.As(err, &se), "the RE2 *syntax.Error stays reachable for %q", tc.in)
	}
}

func TestPatternErrorMessage(t *testing.T) {
	_, err := compilePattern(`(?<=a)b`)
	require.Error(t, err, "lookbehind must be rejected")
	assert.Equal(t, `invalid pattern "(?<=a)b": lookbehind is not supported`, err.Error(), "error text")
}
