package longtest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moduleRoot is the module's directory, seen from this package's.
const moduleRoot = "../.."

// ciLongTests matches the line of .ci/run that names the long tests its
// long-tests step runs: long_tests='^(TestA|TestB)$'.
var ciLongTests = regexp.MustCompile(`(?m)^long_tests='\^\(([A-Za-z0-9_|]+)\)\$'$`)

// TestEveryLongTestRunsInCI: a test skipped by default still runs in CI,
// so every test function that calls longtest.Skip is named in .ci/run's
// long-tests step, and the step names no test that is not one.
func TestEveryLongTestRunsInCI(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(moduleRoot, ".ci", "run"))
	require.NoError(t, err, "read .ci/run")
	m := ciLongTests.FindSubmatch(script)
	require.NotNil(t, m, ".ci/run has a line long_tests='^(TestA|TestB)$'")
	inCI := strings.Split(string(m[1]), "|")
	slices.Sort(inCI)

	long := longTests(t)
	require.NotEmpty(t, long, "the module has long tests (this walk finds calls of longtest.Skip)")
	assert.Equal(t, long, inCI, ".ci/run's long_tests names exactly the tests that call longtest.Skip")
}

// longTests returns, sorted, the names of the test functions in the
// module's _test.go files that call longtest.Skip.
func longTests(t *testing.T) []string {
	t.Helper()
	var names []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// This package's own tests call Skip on a recorder.
			if n := d.Name(); path != moduleRoot && (strings.HasPrefix(n, ".") || n == "testdata" || path == filepath.Join(moduleRoot, "internal", "longtest")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			if callsSkip(fn.Body) {
				names = append(names, fn.Name.Name)
			}
		}
		return nil
	})
	require.NoError(t, err, "walk the module's test files")
	slices.Sort(names)
	return names
}

// callsSkip reports whether body calls longtest.Skip.
func callsSkip(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return !found
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Skip" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "longtest" {
				found = true
			}
		}
		return !found
	})
	return found
}
