package checks

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// PatternError reports a regex that cannot be used: Python syntax that RE2
// has no equivalent for, Python syntax errors the translator detects, or an
// error from Go's regexp parser on the translated pattern.
type PatternError struct {
	// Pattern is the pattern as written in the workload.
	Pattern string
	// Offset is the byte offset in Pattern where the problem was found, or
	// -1 when only RE2 knows (then Err is its *syntax.Error).
	Offset int
	// Reason says what is wrong, for example "lookbehind is not supported".
	Reason string
	// Err is the underlying regexp error, if any.
	Err error
}

// Error returns `invalid pattern "(?<=a)b": lookbehind is not supported`.
func (e *PatternError) Error() string {
	return fmt.Sprintf("invalid pattern %q: %s", e.Pattern, e.Reason)
}

// Unwrap returns the underlying regexp error, or nil.
func (e *PatternError) Unwrap() error { return e.Err }

// compilePattern compiles a workload regex written for Python's
// re.search(pattern, content, re.MULTILINE) into an equivalent Go regexp
// (reference: _check_regex_patterns). It translates with translatePattern
// and compiles the result; every failure is a *PatternError.
//
// Supported Python syntax: everything RE2 shares with Python (classes,
// alternation, greedy and lazy quantifiers, {m,n} and Python's {,n},
// (?:...), (?P<name>...), ^ $ \A \b \B \d \D \s \S \w \W), leading global
// inline flags (?i) (?s) (?m) (?x) (?a) (?u) in any combination, scoped
// flags (?i:...) (?-i:...) including x, comment groups (?#...), \Z (becomes
// \z), \xHH \uHHHH \UHHHHHHHH and octal escapes, \b inside a class
// (backspace). Verbose mode (?x) is implemented: unescaped whitespace and
// #-comments outside character classes are dropped, as Python does.
//
// Rejected with a clear Reason: backreferences (\1, (?P=name)), lookahead
// (?= (?!, lookbehind (?<= (?<!, atomic groups (?>...), possessive
// quantifiers (*+ ++ ?+ {m,n}+), conditionals (?(1)...), \N{NAME}, the L
// flag, global flags not at the start of the pattern, and escapes Python
// itself rejects (\p, \Q, \C, \e, ...).
//
// \d \w \s and their negations keep Python's meaning, in and outside
// classes: Unicode-aware by default (\d is \p{Nd}, \w is [\p{L}\p{N}_],
// \s is str.isspace(), including \v, \x1c-\x1f, NBSP and the Unicode
// spaces), ASCII under (?a) or (?a:...) (\s is [ \t\n\r\f\v]).
//
// Remaining differences from Python, by design of RE2: \b and \B are
// ASCII-only word boundaries (Python's are Unicode-aware unless (?a) is
// given), the Unicode tables are Go's (Python's may be an older Unicode
// version), and repeat counts above 1000 are rejected. Matching runs in
// linear time, so no pattern can hang a benchmark.
func compilePattern(src string) (*regexp.Regexp, error) {
	goSrc, err := translatePattern(src)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(goSrc)
	if err != nil {
		reason := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			reason = fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
		}
		return nil, &PatternError{Pattern: src, Offset: -1, Reason: reason, Err: err}
	}
	return re, nil
}

// translatePattern rewrites a Python re pattern (searched with
// re.MULTILINE) into Go RE2 syntax without compiling it; see compilePattern
// for what is supported. The result always starts with a flag group such as
// "(?m)" or "(?ims)". Errors are *PatternError.
func translatePattern(src string) (string, error) {
	if !utf8.ValidString(src) {
		// Checked up front: escape handling works on bytes and could
		// otherwise splice the halves of a broken character back together.
		off := 0
		for off < len(src) {
			r, size := utf8.DecodeRuneInString(src[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return "", &PatternError{Pattern: src, Offset: off, Reason: "invalid UTF-8"}
	}
	t := &translator{src: src, atStart: true}
	if err := t.run(); err != nil {
		return "", err
	}
	flags := "m"
	for _, f := range "is" {
		if strings.ContainsRune(t.globalFlags, f) {
			flags += string(f)
		}
	}
	return "(?" + flags + ")" + t.out.String(), nil
}

type translator struct {
	src         string
	i           int
	out         strings.Builder
	verbose     bool
	ascii       bool    // Python's ASCII flag (?a) is in effect
	stack       []frame // state to restore when each open group closes
	globalFlags string
	atStart     bool // nothing but global flags and comments seen so far
}

// frame is the flag state saved when a group opens.
type frame struct{ verbose, ascii bool }

// fail is a *PatternError at byte offset at of the source.
func (t *translator) fail(at int, format string, args ...any) error {
	return &PatternError{Pattern: t.src, Offset: at, Reason: fmt.Sprintf(format, args...)}
}

// run translates the whole source into t.out, token by token.
func (t *translator) run() error {
	for t.i < len(t.src) {
		c := t.src[t.i]
		if t.verbose {
			if strings.IndexByte(" \t\n\r\v\f", c) >= 0 {
				t.i++
				continue
			}
			if c == '#' {
				if nl := strings.IndexByte(t.src[t.i:], '\n'); nl >= 0 {
					t.i += nl + 1
				} else {
					t.i = len(t.src)
				}
				continue
			}
		}
		var err error
		switch c {
		case '\\':
			err = t.escape()
			t.atStart = false
		case '[':
			err = t.class()
			t.atStart = false
		case '(':
			err = t.group()
		case ')':
			if len(t.stack) == 0 {
				return t.fail(t.i, "unbalanced parenthesis")
			}
			f := t.stack[len(t.stack)-1]
			t.verbose, t.ascii = f.verbose, f.ascii
			t.stack = t.stack[:len(t.stack)-1]
			t.out.WriteByte(')')
			t.i++
		case '*', '+', '?':
			t.out.WriteByte(c)
			t.i++
			err = t.quantifierSuffix()
		case '{':
			err = t.brace()
		default:
			_, size := utf8.DecodeRuneInString(t.src[t.i:])
			t.out.WriteString(t.src[t.i : t.i+size])
			t.i += size
			t.atStart = false
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// quantifierSuffix handles what may follow a quantifier: ? (lazy, kept) or
// + (possessive, rejected).
func (t *translator) quantifierSuffix() error {
	t.atStart = false
	if t.i < len(t.src) {
		switch t.src[t.i] {
		case '?':
			t.out.WriteByte('?')
			t.i++
		case '+':
			return t.fail(t.i, "possessive quantifiers are not supported")
		}
	}
	return nil
}

// brace translates {m}, {m,}, {,n} and {m,n}; any other { is a literal, as
// in Python.
func (t *translator) brace() error {
	start := t.i
	j := t.i + 1
	lo := digitsEnd(t.src, j)
	min := t.src[j:lo]
	j = lo
	max, comma := "", false
	if j < len(t.src) && t.src[j] == ',' {
		comma = true
		hi := digitsEnd(t.src, j+1)
		max = t.src[j+1 : hi]
		j = hi
	}
	if j >= len(t.src) || t.src[j] != '}' || (min == "" && !comma) {
		// Not a repeat: a literal brace.
		t.out.WriteString(`\{`)
		t.i = start + 1
		t.atStart = false
		return nil
	}
	if min == "" {
		min = "0"
	}
	t.out.WriteString("{" + min)
	if comma {
		t.out.WriteString("," + max)
	}
	t.out.WriteString("}")
	t.i = j + 1
	return t.quantifierSuffix()
}
