package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// invokeEnv runs benchserve with a fixed environment (getenv) instead of
// the process's.
func invokeEnv(t *testing.T, environ map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return environ[k] }})
	t.Logf("benchserve %s -> %d\nstderr:\n%s", strings.Join(args, " "), code, errb.String())
	return result{code, out.String(), errb.String()}
}

// readPayload decodes a workload payload file.
func readPayload(t *testing.T, path string) results.Payload {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err, "results file %s exists", path)
	var p results.Payload
	require.NoError(t, json.Unmarshal(data, &p), "results file %s is a JSON payload", path)
	return p
}

// writeWorkloadFile writes a workload JSON file in dir and returns its path.
func writeWorkloadFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
}

const helpHint = "Run 'benchserve --help' for usage."

// smokeWithoutSLO writes the smoke example workload without its SLO into
// dir: for tests of what several processes under load do, where the
// machine, not the server, decides whether a TTFT p95 of 2 s holds.
func smokeWithoutSLO(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(smoke)
	require.NoError(t, err, "read %s", smoke)
	var w map[string]any
	require.NoError(t, json.Unmarshal(data, &w), "%s is a JSON object", smoke)
	defaults, ok := w["defaults"].(map[string]any)
	require.True(t, ok, "%s has defaults", smoke)
	require.Contains(t, defaults, "slo", "%s has an SLO to leave out", smoke)
	delete(defaults, "slo")
	out, err := json.Marshal(w)
	require.NoError(t, err)
	return writeWorkloadFile(t, dir, "smoke-no-slo.json", string(out))
}
