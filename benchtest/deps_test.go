package benchtest_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxThirdParty is the dependency budget of the plugin: the non-standard
// packages a user's test binary links (go list -deps -test of
// testdata/plugin, a package whose one test imports benchtest; the module's
// own packages and the standard library's vendored golang.org/x copies are
// not counted). It is the true figure, 69 (17 modules), measured
// 2026-12-04:
//   - 46 for Prometheus: google.golang.org/protobuf's 29, which
//     client_model's generated types need, and 17 of client_golang (6),
//     common (expfmt, model), client_model, procfs (3) with
//     golang.org/x/sys/unix, perks, xxhash, goautoneg and go-abnf. expfmt
//     parses the /metrics scrape; client_golang serves the fixture
//     server's /metrics (package metrics).
//   - 14 for santhosh-tekuri/jsonschema/v6 (the json_schema check and the
//     contracts): its own 2 and golang.org/x/text's message catalog (12),
//     which formats its errors.
//   - 3 for the SSE reader: r3labs/sse/v2, gopkg.in/cenkalti/backoff.v1 and
//     golang.org/x/net/context.
//   - 3 of github.com/aclements/go-moremath (mathx, vec, stats: pure Go),
//     whose Mann–Whitney U test benchstat uses and Baseline's comparison too.
//   - 2 of golang.org/x/text (width, transform), by which the presentation
//     layer counts the columns of a wide rune.
//   - 1, github.com/agnivade/levenshtein: the edit distance behind the
//     did-you-mean of a mistyped key, role or check (internal/suggest).
//
// None can go without hand-writing what the library does (a Prometheus
// text parser, an SSE reader, a JSON Schema validator). A user's test adds
// only the standard library's testing to benchtest's own imports, so go
// list -deps ./benchtest gives the same 69.
const maxThirdParty = 69

// heavy are module paths that belong behind an opt-in import (history,
// report, internal/tokens/builtin with tiktoken's vocabularies, about
// 12 MB) or the CLI, never in the plugin; nor the test libraries
// (testify, go-snaps: a test that snapshots imports go-snaps itself) a
// user's test would not ask for.
var heavy = []string{"gonum.org/", "modernc.org/", "codeberg.org/go-latex", "codeberg.org/go-pdf", "golang.org/x/image", "github.com/chromedp", "git.sr.ht/~sbinet",
	"github.com/tiktoken-go/", "github.com/gkampitakis/", "github.com/stretchr/testify"}

// thirdParty lists the non-standard packages, other than the module's
// own, that go list -deps prints for args.
func thirdParty(t *testing.T, goTool string, args ...string) []string {
	t.Helper()
	out, err := exec.Command(goTool, append([]string{"list", "-deps"}, args...)...).Output()
	require.NoError(t, err, "go list -deps %s", strings.Join(args, " "))
	var third []string
	for line := range strings.Lines(string(out)) {
		// -test marks a package built for the test "p [p.test]".
		p, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") && !strings.HasPrefix(p, "github.com/benchserve/benchserve") {
			third = append(third, p)
		}
	}
	return third
}

// TestDependencyBudget holds a user's test binary to maxThirdParty
// non-standard packages, none of them heavy, and keeps the loader
// (workloads) and the engine (internal/runner) free of the heavy ones too.
func TestDependencyBudget(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	user := thirdParty(t, goTool, "-test", "./testdata/plugin")
	t.Logf("a user's test binary links %d non-standard packages (budget %d)", len(user), maxThirdParty)
	assert.LessOrEqualf(t, len(user), maxThirdParty, "a user's test binary links %d non-standard packages (budget %d):\n%s",
		len(user), maxThirdParty, strings.Join(user, "\n"))
	assert.ElementsMatch(t, user, thirdParty(t, goTool, "github.com/benchserve/benchserve/benchtest"),
		"a user's test links what benchtest imports and nothing more")
	all := slices.Clone(user)
	for _, pkg := range []string{"github.com/benchserve/benchserve/workloads", "github.com/benchserve/benchserve/internal/runner"} {
		all = append(all, thirdParty(t, goTool, pkg)...)
	}
	for _, p := range all {
		for _, h := range heavy {
			assert.Falsef(t, strings.HasPrefix(p, h), "the plugin, workloads or the engine links %s: heavy dependencies sit behind an opt-in import", p)
		}
	}
}
