package benchtest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/benchserve/benchserve/internal/present"
)

// logger is the one way benchtest writes to a test's log and attributes
// (say(tb).Errorf(…)): a server's model name, error message or finish
// reason must not reach go test's output, a terminal or a JUnit file raw.
// Every string, error and fmt.Stringer argument is shown escaped on one
// line and cut (present.Message; with %q, Go-quoted and cut); the text as
// formatted is escaped again (present.Escape: its own newlines kept) as
// the net under any other argument. An attribute value is one escaped
// line, cut (testing refuses a newline in one).
type logger struct{ tb testing.TB }

// say returns tb's logger.
func say(tb testing.TB) logger { return logger{tb} }

// lines marks an argument whose newlines are the message's own (a
// workload's problems, one per line): each line is escaped and cut.
type lines string

// presented marks an argument a present function has escaped and cut
// to its own kind's limit (present.Evidence for a contract's evidence):
// it is shown as it is.
type presented string

// linesOf is err's text as lines.
func linesOf(err error) lines { return lines(err.Error()) }

func (l logger) Logf(format string, args ...any) {
	l.tb.Helper()
	l.tb.Log(text(format, args))
}

func (l logger) Errorf(format string, args ...any) {
	l.tb.Helper()
	l.tb.Error(text(format, args))
}

func (l logger) Fatalf(format string, args ...any) {
	l.tb.Helper()
	l.tb.Fatal(text(format, args))
}

func (l logger) Skipf(format string, args ...any) {
	l.tb.Helper()
	l.tb.Skip(text(format, args))
}

// Attr is tb.Attr(key, value) with value one escaped line, cut to
// present.MessageLimit.
func (l logger) Attr(key, value string) {
	l.tb.Helper()
	l.tb.Attr(key, present.Message(value))
}

// text formats args with format as the logger's comment says.
func text(format string, args []any) string {
	shown := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case lines:
			shown[i] = shownLines(v)
		case presented:
			shown[i] = string(v)
		case string:
			shown[i] = shownString(v)
		case error:
			shown[i] = shownString(v.Error())
		case fmt.Stringer:
			shown[i] = shownString(v.String())
		default:
			shown[i] = a
		}
	}
	return present.Escape(fmt.Sprintf(format, shown...))
}

// shownString is a string argument as text shows it.
type shownString string

// Format writes s as present.Message, or with %q Go-quoted (which escapes
// what Message does) and cut to the same limit.
func (s shownString) Format(f fmt.State, verb rune) {
	if verb != 'q' {
		fmt.Fprint(f, present.Message(string(s)))
		return
	}
	raw, rest := present.Head(string(s), present.MessageLimit)
	q := strconv.Quote(raw)
	if rest > 0 {
		q += present.CutMark(rest)
	}
	fmt.Fprint(f, q)
}

// shownLines is a lines argument: each line Message-escaped and cut.
type shownLines string

func (s shownLines) Format(f fmt.State, _ rune) {
	ls := strings.Split(string(s), "\n")
	for i, l := range ls {
		ls[i] = present.Message(l)
	}
	fmt.Fprint(f, strings.Join(ls, "\n"))
}
