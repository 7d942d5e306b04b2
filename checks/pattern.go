package checks

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
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

// CompilePattern compiles a workload regex written for Python's
// re.search(pattern, content, re.MULTILINE) into an equivalent Go regexp
// (reference: _check_regex_patterns). It translates with TranslatePattern
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
func CompilePattern(src string) (*regexp.Regexp, error) {
	goSrc, err := TranslatePattern(src)
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

// TranslatePattern rewrites a Python re pattern (searched with
// re.MULTILINE) into Go RE2 syntax without compiling it; see CompilePattern
// for what is supported. The result always starts with a flag group such as
// "(?m)" or "(?ims)". Errors are *PatternError.
func TranslatePattern(src string) (string, error) {
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

func (t *translator) fail(at int, format string, args ...any) error {
	return &PatternError{Pattern: t.src, Offset: at, Reason: fmt.Sprintf(format, args...)}
}

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

func digitsEnd(s string, j int) int {
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j
}

func isOct(c byte) bool { return c >= '0' && c <= '7' }

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// codeEscape handles \x \u \U and octal escapes shared by both contexts. It
// is called with t.i on the letter or digit after the backslash and returns
// handled=false when the escape is something else.
func (t *translator) codeEscape(inClass bool) (handled bool, err error) {
	at := t.i - 1
	c := t.src[t.i]
	emit := func(r uint64) error {
		if r > utf8.MaxRune {
			return t.fail(at, `bad escape %s`, t.src[at:t.i])
		}
		fmt.Fprintf(&t.out, `\x{%x}`, r)
		return nil
	}
	hexN := map[byte]int{'x': 2, 'u': 4, 'U': 8}
	if n, ok := hexN[c]; ok {
		digits := t.src[t.i+1 : min(t.i+1+n, len(t.src))]
		if len(digits) != n || !isHex(digits) {
			return true, t.fail(at, `incomplete escape \%c%s`, c, digits)
		}
		t.i += 1 + n
		v, _ := strconv.ParseUint(digits, 16, 32)
		return true, emit(v)
	}
	if c < '0' || c > '9' {
		return false, nil
	}
	// Octal: \0, \0o, \0oo anywhere; \ooo (three octal digits) anywhere;
	// \o and \oo inside a class. Any other digit escape is a group reference.
	j := t.i
	switch {
	case c == '0':
		j++
		for k := 0; k < 2 && j < len(t.src) && isOct(t.src[j]); k++ {
			j++
		}
	case isOct(c) && t.i+2 < len(t.src) && isOct(t.src[t.i+1]) && isOct(t.src[t.i+2]):
		j += 3
	case inClass && isOct(c):
		j++
		if j < len(t.src) && isOct(t.src[j]) {
			j++
		}
	case inClass:
		return true, t.fail(at, `bad escape \%c`, c)
	default:
		return true, t.fail(at, "backreferences are not supported")
	}
	v, _ := strconv.ParseUint(t.src[t.i:j], 8, 32)
	t.i = j
	if v > 0o377 {
		return true, t.fail(at, "octal escape value %s outside of range 0-0o377", t.src[at:j])
	}
	return true, emit(v)
}

// escape translates a backslash escape outside a character class.
func (t *translator) escape() error {
	at := t.i
	t.i++
	if t.i >= len(t.src) {
		return t.fail(at, "bad escape (end of pattern)")
	}
	c := t.src[t.i]
	switch {
	case strings.IndexByte("dDsSwW", c) >= 0:
		t.out.WriteString(t.perlClass(c, false))
		t.i++
		return nil
	case strings.IndexByte("AbBzafnrtv", c) >= 0:
		t.out.WriteString(`\` + string(c))
		t.i++
		return nil
	case c == 'Z':
		t.out.WriteString(`\z`)
		t.i++
		return nil
	case c == 'N':
		return t.fail(at, `named Unicode escapes \N{...} are not supported`)
	}
	if handled, err := t.codeEscape(false); handled {
		return err
	}
	return t.literalEscape(at)
}

// literalEscape handles \ followed by anything that is not a recognised
// letter or digit: ASCII letters are errors (as in Python), everything else
// is that character literally.
func (t *translator) literalEscape(at int) error {
	c := t.src[t.i]
	if c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return t.fail(at, `bad escape \%c`, c)
	}
	_, size := utf8.DecodeRuneInString(t.src[t.i:])
	lit := t.src[t.i : t.i+size]
	t.i += size
	if c < utf8.RuneSelf {
		if c == ' ' || c == '#' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			fmt.Fprintf(&t.out, `\x{%x}`, c)
		} else {
			t.out.WriteString(`\` + lit) // ASCII punctuation: always itself in RE2
		}
		return nil
	}
	t.out.WriteString(lit)
	return nil
}

// class translates a character class [...].
func (t *translator) class() error {
	start := t.i
	t.out.WriteByte('[')
	t.i++
	if t.i < len(t.src) && t.src[t.i] == '^' {
		t.out.WriteByte('^')
		t.i++
	}
	first := true
	for {
		if t.i >= len(t.src) {
			return t.fail(start, "unterminated character set")
		}
		c := t.src[t.i]
		switch {
		case c == ']' && !first:
			t.out.WriteByte(']')
			t.i++
			return nil
		case c == ']' || c == '[':
			// Python: ] first is literal, [ is always literal (RE2 would
			// read [: as a POSIX class).
			t.out.WriteString(`\` + string(c))
			t.i++
		case c == '\\':
			if err := t.classEscape(); err != nil {
				return err
			}
		default:
			_, size := utf8.DecodeRuneInString(t.src[t.i:])
			t.out.WriteString(t.src[t.i : t.i+size])
			t.i += size
		}
		first = false
	}
}

func (t *translator) classEscape() error {
	at := t.i
	t.i++
	if t.i >= len(t.src) {
		return t.fail(at, "bad escape (end of pattern)")
	}
	c := t.src[t.i]
	switch {
	case strings.IndexByte("dDsSwW", c) >= 0:
		t.out.WriteString(t.perlClass(c, true))
		t.i++
		return nil
	case strings.IndexByte("afnrtv", c) >= 0:
		t.out.WriteString(`\` + string(c))
		t.i++
		return nil
	case c == 'b':
		t.out.WriteString(`\x{8}`)
		t.i++
		return nil
	case c == 'N':
		return t.fail(at, `named Unicode escapes \N{...} are not supported`)
	}
	if handled, err := t.codeEscape(true); handled {
		return err
	}
	return t.literalEscape(at)
}

// group translates an opening parenthesis and the extension that follows.
func (t *translator) group() error {
	at := t.i
	push := func(open string, n int, verbose bool) {
		t.stack = append(t.stack, frame{t.verbose, t.ascii})
		t.verbose = verbose
		t.out.WriteString(open)
		t.i += n
		t.atStart = false
	}
	rest := t.src[t.i+1:]
	if !strings.HasPrefix(rest, "?") {
		push("(", 1, t.verbose)
		return nil
	}
	ext := rest[1:]
	switch {
	case strings.HasPrefix(ext, ":"):
		push("(?:", 3, t.verbose)
		return nil
	case strings.HasPrefix(ext, "P<"):
		end := strings.IndexByte(ext, '>')
		if end < 0 {
			return t.fail(at, "missing >, unterminated name")
		}
		name := ext[2:end]
		if name == "" {
			return t.fail(at, "missing group name")
		}
		push("(?P<"+name+">", 2+end+1, t.verbose)
		return nil
	case strings.HasPrefix(ext, "P="):
		return t.fail(at, "backreferences are not supported")
	case strings.HasPrefix(ext, "="):
		return t.fail(at, "lookahead is not supported")
	case strings.HasPrefix(ext, "!"):
		return t.fail(at, "negative lookahead is not supported")
	case strings.HasPrefix(ext, "<="):
		return t.fail(at, "lookbehind is not supported")
	case strings.HasPrefix(ext, "<!"):
		return t.fail(at, "negative lookbehind is not supported")
	case strings.HasPrefix(ext, ">"):
		return t.fail(at, "atomic groups are not supported")
	case strings.HasPrefix(ext, "("):
		return t.fail(at, "conditional groups are not supported")
	case strings.HasPrefix(ext, "#"):
		end := strings.IndexByte(ext, ')')
		if end < 0 {
			return t.fail(at, "missing ), unterminated comment")
		}
		t.i += 2 + end + 1
		return nil
	case ext != "" && (strings.IndexByte("aiLmsux-", ext[0]) >= 0):
		return t.flags(at, ext)
	case ext == "":
		return t.fail(at, "unexpected end of pattern")
	default:
		r, _ := utf8.DecodeRuneInString(ext)
		return t.fail(at, "unknown extension ?%c", r)
	}
}

// flags handles (?aiLmsux) global flags and (?aiLmsux-imsx:...) scoped
// flags; ext starts at the first flag letter.
func (t *translator) flags(at int, ext string) error {
	j := 0
	on := ""
	for j < len(ext) && strings.IndexByte("aiLmsux", ext[j]) >= 0 {
		on += string(ext[j])
		j++
	}
	off := ""
	neg := j < len(ext) && ext[j] == '-'
	if neg {
		j++
		for j < len(ext) && strings.IndexByte("imsx", ext[j]) >= 0 {
			off += string(ext[j])
			j++
		}
		if off == "" {
			if j < len(ext) && strings.IndexByte("aLu", ext[j]) >= 0 {
				return t.fail(at, "bad inline flag: cannot turn off flags 'a', 'u' and 'L'")
			}
			return t.fail(at, "missing flag")
		}
	}
	if j >= len(ext) {
		return t.fail(at, "missing -, : or )")
	}
	if ext[j] != ':' && ext[j] != ')' {
		r, _ := utf8.DecodeRuneInString(ext[j:])
		return t.fail(at, "unknown flag %q", r)
	}
	if strings.Contains(on, "L") {
		return t.fail(at, "bad inline flag: cannot use 'L' flag with a str pattern")
	}
	if strings.Contains(on, "a") && strings.Contains(on, "u") {
		return t.fail(at, "bad inline flag: flags 'a', 'u' and 'L' are incompatible")
	}
	for _, f := range off {
		if strings.ContainsRune(on, f) {
			return t.fail(at, "bad inline flag: flag turned on and off")
		}
	}
	n := 2 + j + 1 // "(?" + flags + terminator
	if ext[j] == ')' {
		if neg {
			return t.fail(at, "missing :")
		}
		if !t.atStart || len(t.stack) > 0 {
			return t.fail(at, "global flags not at the start of the expression")
		}
		t.globalFlags += on
		if strings.Contains(on, "x") {
			t.verbose = true
		}
		if strings.Contains(on, "a") {
			t.ascii = true
		}
		t.i += n
		return nil
	}
	goOn, goOff := keepFlags(on), keepFlags(off)
	open := "(?" + goOn
	if goOff != "" {
		open += "-" + goOff
	}
	open += ":"
	verbose := t.verbose
	if strings.Contains(on, "x") {
		verbose = true
	}
	if strings.Contains(off, "x") {
		verbose = false
	}
	t.stack = append(t.stack, frame{t.verbose, t.ascii})
	t.verbose = verbose
	switch {
	case strings.Contains(on, "a"):
		t.ascii = true
	case strings.Contains(on, "u"):
		t.ascii = false
	}
	t.out.WriteString(open)
	t.i += n
	t.atStart = false
	return nil
}

// keepFlags returns the flags among i, m, s that RE2 shares with Python.
func keepFlags(f string) string {
	var b strings.Builder
	for _, c := range "ims" {
		if strings.ContainsRune(f, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// Python's \s: str.isspace() characters in Unicode mode, [ \t\n\r\f\v] in
// ASCII mode. RE2's \s is [\t\n\f\r ] (no \v), so both are spelled out.
const (
	pySpaceASCII   = `\t-\r `
	pySpaceUnicode = `\t-\r\x{1c}- \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`
)

// perlClass translates Python's \d \D \s \S \w \W (c is the letter) into
// RE2 with Python's meaning: in Unicode mode (Python's default for str
// patterns) \d is \p{Nd}, \w is [\p{L}\p{N}_] (str.isalnum() or '_'),
// \s is str.isspace(); with (?a) they are ASCII, and \s includes \v. Inside
// a class (inClass) the result is class content, negations spelled out as
// ranges.
func (t *translator) perlClass(c byte, inClass bool) string {
	var pos string
	switch c | 0x20 {
	case 'd':
		if t.ascii {
			return `\` + string(c) // RE2's \d \D are Python's ASCII ones
		}
		if c == 'd' {
			return `\p{Nd}`
		}
		return `\P{Nd}`
	case 'w':
		if t.ascii {
			return `\` + string(c) // RE2's \w \W are Python's ASCII ones
		}
		pos = `\p{L}\p{N}_`
		if c == 'W' && inClass {
			return unicodeNonWord()
		}
	case 's':
		pos = pySpaceUnicode
		if t.ascii {
			pos = pySpaceASCII
		}
		if c == 'S' && inClass {
			if t.ascii {
				return `\x{0}-\x{8}\x{e}-\x{1f}!-\x{10ffff}`
			}
			return `\x{0}-\x{8}\x{e}-\x{1b}!-\x{84}\x{86}-\x{9f}\x{a1}-\x{167f}\x{1681}-\x{1fff}` +
				`\x{200b}-\x{2027}\x{202a}-\x{202e}\x{2030}-\x{205e}\x{2060}-\x{2fff}\x{3001}-\x{10ffff}`
		}
	}
	switch {
	case inClass:
		return pos
	case c >= 'a':
		return "[" + pos + "]"
	default:
		return "[^" + pos + "]"
	}
}

// unicodeNonWord is the class content of Python's Unicode \W inside a
// class: every code point outside \p{L}, \p{N} and '_', as ranges (RE2 has
// no way to negate a union inside a class).
var unicodeNonWord = sync.OnceValue(func() string {
	var word []unicode.Range32
	for _, tab := range []*unicode.RangeTable{unicode.L, unicode.N, {R16: []unicode.Range16{{Lo: '_', Hi: '_', Stride: 1}}}} {
		for _, r := range tab.R16 {
			for lo := rune(r.Lo); lo <= rune(r.Hi); lo += rune(r.Stride) {
				word = append(word, unicode.Range32{Lo: uint32(lo), Hi: uint32(lo), Stride: 1})
				if r.Stride == 1 {
					word[len(word)-1].Hi = uint32(r.Hi)
					break
				}
			}
		}
		for _, r := range tab.R32 {
			for lo := r.Lo; lo <= r.Hi; lo += r.Stride {
				word = append(word, unicode.Range32{Lo: lo, Hi: lo, Stride: 1})
				if r.Stride == 1 {
					word[len(word)-1].Hi = r.Hi
					break
				}
			}
		}
	}
	sort.Slice(word, func(i, j int) bool { return word[i].Lo < word[j].Lo })
	var b strings.Builder
	next := uint32(0) // first code point not yet covered
	for _, r := range word {
		if r.Lo > next {
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, next, r.Lo-1)
		}
		next = max(next, r.Hi+1)
	}
	if next <= unicode.MaxRune {
		fmt.Fprintf(&b, `\x{%x}-\x{%x}`, next, unicode.MaxRune)
	}
	return b.String()
})
