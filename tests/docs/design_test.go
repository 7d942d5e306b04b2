package docs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// module is the module path the drawing shortens.
const module = "github.com/benchserve/benchserve/"

// TestDesignDependencyDrawingIsGoList: the dependency block of
// docs/design.md (between the deps markers) is what `go list` says each
// package imports of the module, one line per package with an import,
// "pkg ─> a, b" in sorted order, internal/ dropped; regenerate it with
// BENCHSERVE_UPDATE_DESIGN=1.
func TestDesignDependencyDrawingIsGoList(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	root := filepath.Join("..", "..")
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list")
	var lines []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		require.NoError(t, dec.Decode(&p))
		name := short(p.ImportPath)
		if strings.HasPrefix(name, "tests/") || strings.HasPrefix(name, "github.com/") || name == "cmd/benchserve" {
			continue // tests only; the main package is the CLI's
		}
		var deps []string
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				deps = append(deps, short(imp))
			}
		}
		if len(deps) == 0 {
			continue
		}
		slices.Sort(deps)
		lines = append(lines, name+" ─> "+strings.Join(deps, ", "))
	}
	slices.Sort(lines)
	want := strings.Join(lines, "\n")

	path := filepath.Join(root, "docs", "design.md")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(b)
	const begin, end = "<!-- deps:begin (go list; TestDesignDependencyDrawingIsGoList) -->\n```\n", "\n```\n<!-- deps:end -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	require.True(t, i >= 0 && j > i, "design.md holds the deps markers")
	if os.Getenv("BENCHSERVE_UPDATE_DESIGN") != "" {
		doc = doc[:i+len(begin)] + want + doc[j:]
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		return
	}
	assert.Equal(t, want, doc[i+len(begin):j], "docs/design.md's dependency drawing is go list's (BENCHSERVE_UPDATE_DESIGN=1 regenerates it)")
}

// short is a module package's name as the drawing writes it.
func short(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "internal/")
}
