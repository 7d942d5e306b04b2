package benchtest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/results"
)

// appliesChildEnv selects, in a child process, which misapplied option
// TestAppliesChild passes.
const appliesChildEnv = "BENCHTEST_APPLIES_CHILD"

// TestAppliesChild is run by TestOptionThatDoesNotApplyFails: one door
// given an option it does not read.
func TestAppliesChild(t *testing.T) {
	fx := benchtest.WithFixture(fixtures.Options{Timing: &fixtures.Timing{}})
	switch os.Getenv(appliesChildEnv) {
	case "":
		t.Skip("run by TestOptionThatDoesNotApplyFails in a child process")
	case "goodput-run":
		benchtest.RunWorkload(t, "testdata/one.json", fx, benchtest.WithGoodput("ttft:200"))
	case "output-capacity":
		benchtest.SearchCapacity(t, "testdata/one.json", results.CapacitySearch{Start: 1, Max: 1}, 0, fx, benchtest.WithOutput(t.TempDir()+"/x.json"))
	case "repetitions-capacity":
		benchtest.SearchCapacity(t, "testdata/one.json", results.CapacitySearch{Start: 1, Max: 1}, 0, fx, benchtest.WithRepetitions(3))
	case "negative-repetitions":
		benchtest.RunWorkload(t, "testdata/one.json", fx, benchtest.WithRepetitions(-2))
	}
	t.Log("the run went on")
}

// An option the function does not read fails the test before anything
// is sent, naming where it applies; a negative repetition count too.
func TestOptionThatDoesNotApplyFails(t *testing.T) {
	for child, want := range map[string]string{
		"goodput-run":          "benchtest: WithGoodput does not apply to RunWorkload; it applies to BenchWorkload, BenchSweep, SearchCapacity",
		"output-capacity":      "benchtest: WithOutput does not apply to SearchCapacity; it applies to RunWorkload, RunConformance",
		"repetitions-capacity": "benchtest: WithRepetitions does not apply to SearchCapacity: each probe sends as many requests as its verdict needs",
		"negative-repetitions": "benchtest: WithRepetitions(-2) (or $BENCHSERVE_REPETITIONS): want at least 1",
	} {
		t.Run(child, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestAppliesChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), appliesChildEnv+"="+child)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the child fails:\n%s", out)
			assert.Contains(t, string(out), want)
			assert.False(t, strings.Contains(string(out), "the run went on"), "it stops before the run:\n%s", out)
		})
	}
}
