package benchtest

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/present"
)

// recordingTB records what a logger hands to testing.
type recordingTB struct {
	testing.TB
	logs  []string
	attrs map[string]string
}

func (r *recordingTB) Helper()                {}
func (r *recordingTB) Log(args ...any)        { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recordingTB) Error(args ...any)      { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recordingTB) Attr(key, value string) { r.attrs[key] = value }

const poisoned = "evil\x1b]0;title\x07\x1b[8m\r--- PASS: TestX\n    ok\u202eright\xff"

func TestLoggerEscapesEveryServerString(t *testing.T) {
	tb := &recordingTB{attrs: map[string]string{}}
	say(tb).Errorf("case %q: request error: %v (finish %s)", poisoned, errors.New(poisoned), poisoned)
	say(tb).Attr("model", poisoned)
	require.Len(t, tb.logs, 1, "one log entry")
	got := tb.logs[0]
	for _, r := range got {
		assert.False(t, present.Unsafe(r), "no unsafe rune %U in the log entry %q", r, got)
	}
	assert.Equal(t, `case "evil\x1b]0;title\a\x1b[8m\r--- PASS: TestX\n    ok\u202eright\xff": request error: `+present.Line(poisoned)+` (finish `+present.Line(poisoned)+`)`, got,
		"%q is Go-quoted, %v and %s are escaped on one line: the newline cannot start a line of its own")
	assert.Equal(t, present.Line(poisoned), tb.attrs["model"], "the attribute value is one escaped line")
}

func TestLoggerCutsLongStrings(t *testing.T) {
	tb := &recordingTB{attrs: map[string]string{}}
	long := strings.Repeat("m", 10_240)
	say(tb).Logf("model %s, quoted %q", long, long)
	say(tb).Attr("model", present.Name(long))
	assert.Less(t, len(tb.logs[0]), 2*present.MessageLimit+100, "both forms are cut: %d bytes", len(tb.logs[0]))
	assert.Contains(t, tb.logs[0], "…(+9,640 bytes)", "the mark says how much was cut")
	assert.Equal(t, strings.Repeat("m", present.NameLimit)+"…(+10,140 bytes)", tb.attrs["model"], "the model attribute is cut to a name's limit")
}

func TestLoggerKeepsTheLinesOfAMultiLineProblem(t *testing.T) {
	tb := &recordingTB{attrs: map[string]string{}}
	say(tb).Errorf("workload did not load: %s", linesOf(errors.New("w.json: 2 problems:\n  case \"a\x1b\": no messages")))
	assert.Equal(t, "workload did not load: w.json: 2 problems:\n  case \"a\\x1b\": no messages", tb.logs[0], "its own newlines kept, each line escaped")
}

// TestEveryLogLineGoesThroughSay: no file of the package but say.go
// calls testing's log, error, skip or attribute methods itself, so no
// message can reach a test's output unescaped.
func TestEveryLogLineGoesThroughSay(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err, "list the package's files")
	banned := map[string]bool{"Log": true, "Logf": true, "Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Skip": true, "Skipf": true, "Attr": true}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "say.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err, "parse %s", name)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !banned[sel.Sel.Name] {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "t" || id.Name == "b" || id.Name == "tb") {
				assert.Fail(t, "a log call bypasses say", "%s: %s.%s: write through say(%s).%sf", fset.Position(call.Pos()), id.Name, sel.Sel.Name, id.Name, strings.TrimSuffix(sel.Sel.Name, "f"))
			}
			return true
		})
	}
}
