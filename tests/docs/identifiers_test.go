package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moduleRoot is the repository root, two levels above this package.
const moduleRoot = "../.."

// declared maps each of the module's package names to the identifiers its
// non-test files declare: top-level names, and "Type.Member" for methods
// and struct fields. Packages sharing a name share one set.
func declared(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != moduleRoot && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := out[f.Name.Name]
		if names == nil {
			names = map[string]bool{}
			out[f.Name.Name] = names
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) == 0 {
					names[d.Name.Name] = true
					continue
				}
				names[recvName(d.Recv.List[0].Type)+"."+d.Name.Name] = true
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								for _, n := range fld.Names {
									names[s.Name.Name+"."+n.Name] = true
								}
								if len(fld.Names) == 0 { // embedded: its name is the type's
									names[s.Name.Name+"."+recvName(fld.Type)] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	require.NoError(t, err, "parse the module's Go files")
	return out
}

// recvName is the type name of a receiver or embedded field expression.
func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return ""
}

var (
	codeSpan = regexp.MustCompile("`[^`\n]+`")
	// qualified is pkg.Name or pkg.Name.Member; a lower-case name counts
	// only when called (followed by "("), so file names such as
	// capacity.json are not taken for identifiers.
	qualified = regexp.MustCompile(`(?:^|[^\w./])([a-z][a-z0-9]*)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?(\()?`)
)

// TestDocsNameIdentifiersThatExist: every Go identifier the docs name in
// backticks as pkg.Name (or pkg.Name.Member), with pkg one of the module's
// packages, is declared there — a renamed or moved function (results.* that
// became resultio.*) fails here instead of misleading a reader.
func TestDocsNameIdentifiersThatExist(t *testing.T) {
	decls := declared(t)
	docs, err := filepath.Glob(filepath.Join(moduleRoot, "docs", "*.md"))
	require.NoError(t, err)
	docs = append(docs, filepath.Join(moduleRoot, "README.md"), filepath.Join(moduleRoot, "cmd", "benchserve", "REFERENCE.md"))
	checked := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		require.NoError(t, err)
		for i, line := range strings.Split(string(data), "\n") {
			for _, span := range codeSpan.FindAllString(line, -1) {
				for _, m := range qualified.FindAllStringSubmatch(strings.Trim(span, "`"), -1) {
					pkg, name, member, call := m[1], m[2], m[3], m[4] != ""
					names, ours := decls[pkg]
					if !ours || (!ast.IsExported(name) && !call && member == "") {
						continue
					}
					checked++
					ref := pkg + "." + name
					if member != "" && names[name] && !ast.IsExported(member) {
						continue // pkg.Type.lower: prose, not a member
					}
					if member != "" && names[name] {
						ref += "." + member
						assert.Truef(t, names[name+"."+member], "%s:%d: `%s` names %s, which package %s does not declare", filepath.Base(doc), i+1, span, ref, pkg)
						continue
					}
					assert.Truef(t, names[name], "%s:%d: `%s` names %s, which package %s does not declare", filepath.Base(doc), i+1, span, ref, pkg)
				}
			}
		}
	}
	assert.Greater(t, checked, 50, "the docs name many identifiers; a regexp that matches none checks nothing")
}
