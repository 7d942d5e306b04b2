package surface_test

import (
	"go/ast"
	"go/types"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/packages"
)

// publicImportPaths are the import paths of the public packages
// (publicPackages' directories under the module path).
func publicImportPaths(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, pkg := range publicPackages(t) {
		paths = append(paths, module+"/"+pkg.dir)
	}
	return paths
}

// signatureWalker walks the types a user meets in a public API and
// records every named or alias type that lives under internal/.
type signatureWalker struct {
	seen map[types.Type]bool
	// found maps "where: internal type" to true, for one line per finding.
	found map[string]bool
}

// internalPath reports whether obj belongs to a package a user cannot
// import.
func internalPath(obj types.Object) bool {
	return obj != nil && obj.Pkg() != nil && strings.Contains(obj.Pkg().Path()+"/", "/internal/")
}

// ownPublic reports whether obj is declared in one of the module's
// public packages, whose exported shape is part of what a user meets.
func ownPublic(obj types.Object) bool {
	return obj != nil && obj.Pkg() != nil && strings.HasPrefix(obj.Pkg().Path(), module+"/") && !internalPath(obj)
}

// typ walks t, reached at where (e.g. "workloads.Case.Messages").
func (w *signatureWalker) typ(where string, t types.Type) {
	if t == nil || w.seen[t] {
		return
	}
	switch t := t.(type) {
	case *types.Alias:
		if internalPath(t.Obj()) {
			w.found[where+": "+t.Obj().Pkg().Path()+"."+t.Obj().Name()] = true
			return
		}
		w.seen[t] = true
		w.typ(where, t.Rhs())
	case *types.Named:
		if internalPath(t.Obj()) {
			w.found[where+": "+t.Obj().Pkg().Path()+"."+t.Obj().Name()] = true
			return
		}
		for i := range t.TypeArgs().Len() {
			w.typ(where, t.TypeArgs().At(i))
		}
		if !ownPublic(t.Obj()) {
			return // the standard library's and other modules' types are theirs
		}
		w.seen[t] = true
		w.named(t.Obj().Pkg().Name()+"."+t.Obj().Name(), t)
	case *types.Pointer:
		w.typ(where, t.Elem())
	case *types.Slice:
		w.typ(where, t.Elem())
	case *types.Array:
		w.typ(where, t.Elem())
	case *types.Map:
		w.typ(where, t.Key())
		w.typ(where, t.Elem())
	case *types.Chan:
		w.typ(where, t.Elem())
	case *types.Signature:
		for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tuple.Len() {
				w.typ(where, tuple.At(i).Type())
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			f := t.Field(i)
			// An embedded field promotes its exported fields, exported or not.
			if f.Exported() || f.Embedded() {
				w.typ(where+"."+f.Name(), f.Type())
			}
		}
	case *types.Interface:
		for i := range t.NumMethods() {
			if m := t.Method(i); m.Exported() {
				w.typ(where+"."+m.Name(), m.Type())
			}
		}
	}
}

// named walks a public named type: its underlying shape and its exported
// methods.
func (w *signatureWalker) named(where string, t *types.Named) {
	w.typ(where, t.Underlying())
	for i := range t.NumMethods() {
		if m := t.Method(i); m.Exported() {
			w.typ(where+"."+m.Name(), m.Type())
		}
	}
}

// TestPublicSignaturesNameNoInternalType: a user can spell every type the
// public packages show — functions, methods, struct fields (through
// exported fields of exported types), type aliases, constants' and
// variables' types; none lives under internal/.
func TestPublicSignaturesNameNoInternalType(t *testing.T) {
	t.Chdir(moduleRoot)
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, publicImportPaths(t)...)
	require.NoError(t, err, "load the public packages")
	w := &signatureWalker{seen: map[types.Type]bool{}, found: map[string]bool{}}
	for _, pkg := range pkgs {
		require.Emptyf(t, pkg.Errors, "load %s", pkg.PkgPath)
		scope := pkg.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			where := pkg.Name + "." + name
			switch obj := obj.(type) {
			case *types.TypeName:
				w.typ(where, obj.Type())
			case *types.Func, *types.Var, *types.Const:
				w.typ(where, obj.Type())
			}
		}
	}
	found := slices.Sorted(func(yield func(string) bool) {
		for f := range w.found {
			if !yield(f) {
				return
			}
		}
	})
	for _, f := range found {
		t.Errorf("public API names an internal type a user cannot import: %s", f)
	}
}

// engineDeps are packages the vocabulary (workloads, results) must not
// link: the SSE client and everything that sends requests or judges
// servers. Loading a workload file is data, not a client.
var engineDeps = []string{
	module + "/internal/stream",
	module + "/internal/scrape",
	module + "/internal/serverinfo",
	module + "/internal/conformance",
	module + "/internal/runner",
	"github.com/r3labs/sse/v2",
	"net/http/httptrace",
}

// goListDeps is `go list -deps` of the patterns, one import path a line.
func goListDeps(t *testing.T, patterns ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, patterns...)...).Output()
	require.NoError(t, err, "go list -deps %v", patterns)
	return strings.Fields(string(out))
}

// TestVocabularyLinksNoEngine: importing workloads or results links none
// of the engine's request machinery.
func TestVocabularyLinksNoEngine(t *testing.T) {
	t.Chdir(moduleRoot)
	deps := goListDeps(t, "./workloads", "./results")
	for _, bad := range engineDeps {
		assert.Falsef(t, slices.Contains(deps, bad), "workloads and results link %s (go list -deps ./workloads ./results)", bad)
	}
	t.Logf("go list -deps ./workloads: %d packages", len(goListDeps(t, "./workloads")))
}

// engineIdent is an engine package's identifier as a doc comment would
// name it ("stream.MeasureDecode", "runner.Load"): a link a user cannot
// follow.
var engineIdent = regexp.MustCompile(`\b(stream|runner|loadgen|capacity|conformance|resultio|stats|openai|sweep|scrape|serverinfo|contract|schema|py|paths|progress)\.[A-Z]\w*`)

// TestPublicDocsNameNoEngine: the public packages' doc comments (package,
// exported declarations, exported fields) say what happens in the user's
// words or name public identifiers, never an engine one.
func TestPublicDocsNameNoEngine(t *testing.T) {
	t.Chdir(moduleRoot)
	for _, pkg := range publicPackages(t) {
		check := func(where string, groups ...*ast.CommentGroup) {
			for _, g := range groups {
				if g == nil {
					continue
				}
				for _, m := range engineIdent.FindAllString(g.Text(), -1) {
					t.Errorf("%s: %s's doc names the engine's %s", pkg.dir, where, m)
				}
			}
		}
		for _, f := range pkg.files {
			check("package", f.Doc)
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
						check(d.Name.Name, d.Doc)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							check(s.Name.Name, d.Doc, s.Doc, s.Comment)
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, field := range st.Fields.List {
									if len(field.Names) > 0 && field.Names[0].IsExported() {
										check(s.Name.Name+"."+field.Names[0].Name, field.Doc, field.Comment)
									}
								}
							}
						case *ast.ValueSpec:
							if s.Names[0].IsExported() {
								check(s.Names[0].Name, d.Doc, s.Doc, s.Comment)
							}
						}
					}
				}
			}
		}
	}
}
