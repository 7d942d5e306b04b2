package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/fixtures"
)

func TestFixtureSlotsFlag(t *testing.T) {
	var out, errb strings.Builder
	code := run(context.Background(), []string{"fixture", "--slots", "-1"}, &env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	assert.Equal(t, ExitUsage, code, "negative slots refused")
	assert.Contains(t, errb.String(), "--slots -1: want 0 (unlimited) or more", "says why")

	errb.Reset()
	code = run(context.Background(), []string{"fixture", "--help"}, &env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	assert.Equal(t, ExitOK, code, "help")
	assert.Contains(t, out.String(), "--slots int", "help lists --slots")
	assert.Contains(t, out.String(), "FIFO line", "and what it does")
	assert.Empty(t, errb.String(), "help goes to stdout")
}

func TestFixtureMaxModelLenFlag(t *testing.T) {
	var out, errb strings.Builder
	code := run(context.Background(), []string{"fixture", "--max-model-len", "-5"}, &env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	assert.Equal(t, ExitUsage, code, "a negative context refused")
	assert.Contains(t, errb.String(), "--max-model-len -5: want 0 (32768) or more tokens", "says why")

	out.Reset()
	code = run(context.Background(), []string{"fixture", "--help"}, &env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	assert.Equal(t, ExitOK, code, "help")
	assert.Contains(t, out.String(), "--max-model-len tokens", "help lists --max-model-len with its unit")
}

// fixture --help names every fault and the contract it breaks: a CLI user
// has no fixtures.Faults to read.
func TestFixtureHelpListsTheFaults(t *testing.T) {
	var out, errb strings.Builder
	code := run(context.Background(), []string{"fixture", "--help"}, &env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	assert.Equal(t, ExitOK, code, "help")
	for _, f := range fixtures.Faults() {
		assert.Contains(t, out.String(), "  "+string(f)+" ", "help lists %s", f)
		assert.Contains(t, out.String(), f.Contract(), "with the contract %s breaks", f)
	}
	assert.NotContains(t, out.String(), "fixtures.Faults", "no Go identifier for a CLI user to look up")
	for _, line := range strings.Split(out.String(), "\n") {
		assert.LessOrEqual(t, len([]rune(line)), 100, "help lines are wrapped: %q", line)
	}
}

// Every fault the fixture accepts is in its help, the length and cache
// faults (no contract of the suite) among them: the help and the parser
// read one table, and a fault the help leaves out is refused.
func TestFixtureHelpListsEveryAcceptedFault(t *testing.T) {
	var out, errb strings.Builder
	code := run(context.Background(), []string{"fixture", "--help"}, &env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	assert.Equal(t, ExitOK, code, "help")
	for _, name := range []string{"no-tokenize", "wrong-token-count", "no-cache-field", "early-stop"} {
		_, err := fixtures.ParseFault(name)
		assert.NoError(t, err, "the fixture accepts %s", name)
		assert.Contains(t, out.String(), "  "+name+" ", "help lists the accepted fault %s", name)
	}
	assert.Contains(t, out.String(), "tokens.usage_calibration", "with the rule no-tokenize breaks")
	for _, f := range fixtures.Faults() {
		_, err := fixtures.ParseFault(string(f))
		assert.NoError(t, err, "every fault listed is accepted: %s", f)
	}
	assert.Contains(t, unknownFault("no-tokenise"), "did you mean --fault no-tokenize?", "suggestions know them too")
}
