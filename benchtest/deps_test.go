package benchtest_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxThirdParty is the dependency budget of the plugin: what a user's test
// binary links when it imports benchtest (the fixture server's Prometheus
// collector, the SSE reader, expfmt for /metrics; no testify, SQLite or
// plotting). santhosh-tekuri/jsonschema/v6, which the conformance suite
// validates tool arguments and structured output with, brings 14 of them
// (its own two and golang.org/x/text's message catalog, which formats its
// errors); golang.org/x/text/width, by which the presentation layer counts
// the columns of a wide rune, one more; github.com/aclements/go-moremath
// (mathx, vec, stats: pure Go, no dependencies of its own), whose
// Mann–Whitney U test benchstat uses and Baseline's comparison uses too,
// three more.
const maxThirdParty = 68

// heavy are module paths that belong behind an opt-in import (history,
// report) or the CLI, never in the plugin.
var heavy = []string{"gonum.org/", "modernc.org/", "codeberg.org/go-latex", "codeberg.org/go-pdf", "golang.org/x/image", "github.com/chromedp", "git.sr.ht/~sbinet"}

func TestDependencyBudget(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	for _, pkg := range []string{"github.com/benchserve/benchserve/benchtest", "github.com/benchserve/benchserve/workloads",
		"github.com/benchserve/benchserve/internal/runner"} {
		out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
		require.NoError(t, err, "go list -deps %s", pkg)
		var third []string
		for _, p := range strings.Fields(string(out)) {
			if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") && !strings.HasPrefix(p, "github.com/benchserve/benchserve") {
				third = append(third, p)
				for _, h := range heavy {
					assert.Falsef(t, strings.HasPrefix(p, h), "%s links %s: heavy dependencies sit behind an opt-in import", pkg, p)
				}
			}
		}
		assert.LessOrEqualf(t, len(third), maxThirdParty, "%s links %d non-standard packages (budget %d):\n%s", pkg, len(third), maxThirdParty, strings.Join(third, "\n"))
	}
}
