package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryLineGoesThroughPresent: the command prints only through env's
// *present.Writer stdout and stderr. The writers it was given
// (rawOut, rawErr) and the Writer's unescaped sides (Raw, Control) are
// used in print.go alone, and no file reaches for the process's own
// os.Stdout or os.Stderr.
func TestEveryLineGoesThroughPresent(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err, "list the package's files")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err, "parse %s", name)
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && (sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr") {
				assert.Fail(t, "output bypasses the presentation layer", "%s: os.%s: print through e.stdout or e.stderr", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			switch sel.Sel.Name {
			case "rawOut", "rawErr", "Raw", "Control":
				if name != "print.go" {
					assert.Fail(t, "output bypasses the presentation layer", "%s: .%s outside print.go: print through e.stdout, e.stderr, e.printData or e.control", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}
