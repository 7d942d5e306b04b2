package benchtest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/results"
)

// poison is what a hostile or broken server can put in a model name or
// an error body: an OSC title with BEL, a hidden-text SGR, a CR and a
// right-to-left override; poisonModel adds 10 KB to it.
const poison = "evil\x1b]0;title\x07\x1b[8m\r  ok\u202eright"

var poisonModel = "m-" + poison + strings.Repeat("m", 10_000)

// poisonServer answers /v1/models with poisonModel and every chat
// completion with HTTP 500 whose JSON error message holds poison.
func poisonServer(t *testing.T) *fixtures.Server {
	body, err := json.Marshal(map[string]any{"error": map[string]any{"message": "boom " + poison}})
	require.NoError(t, err, "setup: error body")
	return fixtures.Start(t, fixtures.Options{Model: poisonModel, Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Status: 500, ErrorBody: string(body)}
	}})
}

func TestInnerPoisoned(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestPoisonedServerReachesTheLogEscaped (re-executed test binary)")
	}
	t.Run("workload", func(t *testing.T) { benchtest.RunWorkload(t, os.Getenv(workloadEnv)) })
	t.Run("conformance", func(t *testing.T) { benchtest.RunConformance(t, benchtest.WithTags("stream")) })
}

// TestPoisonedServerReachesTheLogEscaped: RunWorkload and RunConformance
// against a server whose model name and error bodies hold terminal
// controls and a bidi override: go test's output holds no raw control
// character (the escapes are visible instead) and the 10 KB model name is
// cut there, while the JSON payload keeps it whole.
func TestPoisonedServerReachesTheLogEscaped(t *testing.T) {
	srv := poisonServer(t)
	dir := t.TempDir()
	w := filepath.Join(dir, "w.json")
	require.NoError(t, os.WriteFile(w, []byte(`{"name":"w","cases":[{"id":"a","messages":[{"role":"user","content":"hi"}]}]}`), 0o644), "setup: workload")
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "-test.run=^TestInnerPoisoned$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BENCHSERVE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, innerEnv+"=1", workloadEnv+"="+w, "BENCHSERVE_URL="+srv.URL, "BENCHSERVE_OUTPUT="+out+"/")
	b, err := cmd.CombinedOutput()
	log := string(b)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the run fails (every request got HTTP 500): %s", log)

	assert.True(t, utf8.ValidString(log), "the log is valid UTF-8")
	for i, r := range log {
		if r != '\n' && r != '\t' && present.Unsafe(r) {
			assert.Failf(t, "a raw control character reached go test's output", "%U at byte %d: %q", r, i, log[max(0, i-60):min(len(log), i+60)])
			break
		}
	}
	assert.Contains(t, log, `boom evil\x1b]0;title\a\x1b[8m\r  ok\u202eright`, "the error body's controls are visible escapes")
	assert.Contains(t, log, `m-evil\x1b]0;title\a\x1b[8m\r  ok\u202eright`, "the model name's too")
	assert.NotContains(t, log, strings.Repeat("m", present.MessageLimit), "the 10 KB model name is cut wherever it is shown")
	assert.Regexp(t, `=== ATTR  TestInnerPoisoned/workload model m-evil.+m…\(\+9,944 bytes\)\n`, log, "the model attribute is cut to a name's limit, with a mark saying how much")
	assert.Contains(t, log, "--- FAIL: TestInnerPoisoned/workload/a", "the failed case is reported")
	assert.Contains(t, log, "--- FAIL: TestInnerPoisoned/conformance/stream.framing", "the failed contract is reported")

	data, err := os.ReadFile(filepath.Join(out, "TestInnerPoisoned_workload.json"))
	require.NoError(t, err, "the payload was written: %s", log)
	var p results.Payload
	require.NoError(t, json.Unmarshal(data, &p), "the payload is JSON")
	require.NotEmpty(t, p.Results, "a record per case")
	assert.Equal(t, poisonModel, p.Results[0].ModelID, "the payload keeps the model name whole, controls and all")
	assert.Contains(t, p.Results[0].Error, poison, "and the server's message as it came")
}
