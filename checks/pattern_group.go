package checks

import (
	"strings"
	"unicode/utf8"
)

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
