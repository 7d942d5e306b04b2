// Package surface holds the budget of the module's public surface. It
// lives apart from the module root so that the root's test binary links
// only what a user's test does (benchtest and its engine).
package surface_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	module = "github.com/benchserve/benchserve"
	// moduleRoot is the module's directory, seen from this package's; the
	// tests run there.
	moduleRoot = "../.."
	// maxPublicPackages and maxExportedNames are the budget of what a
	// user can import: the plugin's face (benchtest, checks, fixtures,
	// metrics, workloads), the payload users read (results) and the two
	// opt-in writers (history, report). The module root holds only the
	// module's doc comment and exports nothing; it is not counted. 198
	// names: snapshots are a go-snaps call of the user's on
	// results.Record.Fingerprint in benchtest.OnRecord (no package of
	// ours links go-snaps), the did-you-mean is internal/suggest, and
	// nothing outside workloads read its embedded suite's bytes.
	maxPublicPackages = 8
	maxExportedNames  = 200
	// maxExportedMembers budgets what hangs off those names: the exported
	// fields of exported struct types and the exported methods of
	// exported types: 616 once the shared vocabulary (wire types,
	// statistics, SLO outcomes, the capacity result) lives in results,
	// plus about 10% headroom, so a new option or field is a decision,
	// not a drift. 695 once the payload records what the new endpoints,
	// generators, traces and comparisons measured (the endpoint and batch
	// size, the requested and achieved lengths, cached tokens, request
	// ids, the comparison's rows) — fields users read in the payload —
	// and 720 for the same headroom, fewer than 4% above it. 721 once
	// the schedule says what a run served (request_throughput, its
	// reason, wall_span_s: the sending rate had been read as throughput)
	// and a comparison lists the gates it could not decide (GateUndecided:
	// a gate that silently passed), and 735 for a headroom of 2%. 723
	// with Record.Fingerprint and Record.Greedy (what a snapshot holds;
	// the one greedy rule compare and the fingerprint share).
	maxExportedMembers = 735
)

// publicPackage is one importable package outside internal/, cmd/ and
// tests/: its directory and its non-test files, parsed.
type publicPackage struct {
	dir   string
	files []*ast.File
}

// publicPackages walks the module for directories with non-test Go files
// that a user can import.
func publicPackages(t *testing.T) []publicPackage {
	t.Helper()
	var pkgs []publicPackage
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		switch name := d.Name(); {
		case path == ".":
		case name == "internal" || name == "cmd" || name == "tests" || name == "tools" || name == "testdata" ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"):
			return filepath.SkipDir
		}
		if path == "." {
			return nil
		}
		fset := token.NewFileSet()
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		var files []*ast.File
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(path, n), nil, parser.ParseComments)
			if err != nil {
				return err
			}
			files = append(files, f)
		}
		if len(files) > 0 {
			pkgs = append(pkgs, publicPackage{dir: filepath.ToSlash(path), files: files})
		}
		return nil
	})
	require.NoError(t, err, "walk the module")
	return pkgs
}

// exportedDecls lists pkg's exported top-level names, each with whether
// it has a doc comment (its own, or its group's).
func exportedDecls(pkg publicPackage) map[string]bool {
	names := map[string]bool{}
	for _, f := range pkg.files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = d.Doc != nil
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names[s.Name.Name] = d.Doc != nil || s.Doc != nil
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names[n.Name] = d.Doc != nil || s.Doc != nil || s.Comment != nil
							}
						}
					}
				}
			}
		}
	}
	return names
}

// TestPublicSurface holds the public surface to what users import: at
// most maxPublicPackages packages with at most maxExportedNames exported
// top-level names in all, each with a godoc comment, and listed in the
// module's doc.go.
func TestPublicSurface(t *testing.T) {
	t.Chdir(moduleRoot)
	pkgs := publicPackages(t)
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err, "the module's doc.go")
	total := 0
	var dirs []string
	for _, pkg := range pkgs {
		dirs = append(dirs, pkg.dir)
		names := exportedDecls(pkg)
		total += len(names)
		for name, documented := range names {
			assert.Truef(t, documented, "%s.%s has no godoc comment", pkg.dir, name)
		}
		assert.Containsf(t, string(doc), "  - "+pkg.dir+":", "doc.go lists the public package %s", pkg.dir)
	}
	slices.Sort(dirs)
	assert.LessOrEqualf(t, len(pkgs), maxPublicPackages, "public packages: %v", dirs)
	assert.LessOrEqualf(t, total, maxExportedNames, "exported top-level names in %v", dirs)
	t.Logf("%d public packages, %d exported top-level names: %v", len(pkgs), total, dirs)
}

// exportedMembers counts pkg's exported fields of exported struct types
// (an embedded exported type is one field) and exported methods of
// exported types.
func exportedMembers(pkg publicPackage) int {
	n := 0
	for _, f := range pkg.files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.IsExported() && exportedRecv(d.Recv) {
					n++
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, field := range st.Fields.List {
						if len(field.Names) == 0 {
							if exportedEmbed(field.Type) {
								n++
							}
							continue
						}
						for _, name := range field.Names {
							if name.IsExported() {
								n++
							}
						}
					}
				}
			}
		}
	}
	return n
}

// exportedEmbed reports whether an embedded field's type is exported
// (T, *T, pkg.T).
func exportedEmbed(typ ast.Expr) bool {
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch t := typ.(type) {
	case *ast.Ident:
		return t.IsExported()
	case *ast.SelectorExpr:
		return t.Sel.IsExported()
	}
	return false
}

// TestPublicMembers holds the exported fields and methods of the public
// packages to maxExportedMembers.
func TestPublicMembers(t *testing.T) {
	t.Chdir(moduleRoot)
	total := 0
	per := map[string]int{}
	for _, pkg := range publicPackages(t) {
		per[pkg.dir] = exportedMembers(pkg)
		total += per[pkg.dir]
	}
	assert.LessOrEqualf(t, total, maxExportedMembers, "exported fields and methods: %v", per)
	t.Logf("%d exported fields and methods: %v", total, per)
}

// TestBenchtestNamesOnlyPublicPackages: a user can spell every type in
// benchtest's exported signatures — none comes from internal/.
func TestBenchtestNamesOnlyPublicPackages(t *testing.T) {
	t.Chdir(moduleRoot)
	var bt *publicPackage
	pkgs := publicPackages(t)
	for i := range pkgs {
		if pkgs[i].dir == "benchtest" {
			bt = &pkgs[i]
		}
	}
	require.NotNil(t, bt, "benchtest is a public package")
	for _, f := range bt.files {
		internal := map[string]string{} // import name → path
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(path, module+"/internal/") {
				continue
			}
			name := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			internal[name] = path
		}
		check := func(what string, n ast.Node) {
			if n == nil {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && internal[x.Name] != "" {
						t.Errorf("benchtest.%s names %s.%s from %s, which a user cannot import", what, x.Name, sel.Sel.Name, internal[x.Name])
					}
				}
				return true
			})
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
					check(d.Name.Name, d.Type)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							check(s.Name.Name, exportedShape(s.Type))
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								check(n.Name, s.Type)
							}
						}
					}
				}
			}
		}
	}
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(recv *ast.FieldList) bool {
	if recv == nil || len(recv.List) == 0 {
		return false
	}
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

// exportedShape keeps, of a struct type, only its exported fields (the
// unexported ones are not part of the signature a user sees).
func exportedShape(typ ast.Expr) ast.Node {
	st, ok := typ.(*ast.StructType)
	if !ok {
		return typ
	}
	var fields []*ast.Field
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.IsExported() {
				fields = append(fields, f)
				break
			}
		}
	}
	return &ast.FieldList{List: fields}
}
