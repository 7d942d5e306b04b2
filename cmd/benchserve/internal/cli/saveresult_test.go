package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// vLLM's --save-result --result-dir --result-filename work as they do in
// vllm bench serve: the JSON results in the directory (made when
// missing), under the given name or vLLM's for the run (a newcomer's
// review: they were unknown flags).
func TestSaveResultAsVLLM(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := filepath.Join(t.TempDir(), "results")
	gen := []string{"--url", srv.URL, "--dataset-name", "random", "--random-input-len", "16", "--random-output-len", "4", "--num-prompts", "3"}

	res := invoke(t, append(gen, "--save-result", "--result-dir", dir, "--result-filename", "run.json")...)
	require.Equal(t, ExitOK, res.code, "stderr: %s", res.stderr)
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	require.NoError(t, err, "the named file in the directory")
	var p struct {
		Results []json.RawMessage `json:"results"`
	}
	require.NoError(t, json.Unmarshal(data, &p), "JSON")
	assert.Len(t, p.Results, 3)

	res = invoke(t, append(gen, "--model", srv.Model(), "--max-concurrency", "2", "--save-result", "--result-dir", dir)...)
	require.Equal(t, ExitOK, res.code, "stderr: %s", res.stderr)
	names, err := filepath.Glob(filepath.Join(dir, "benchserve-*.json"))
	require.NoError(t, err)
	require.Len(t, names, 1, "vLLM's name for the run")
	assert.Regexp(t, regexp.MustCompile(`^benchserve-infqps-concurrency2-`+regexp.QuoteMeta(srv.Model())+`-\d{8}-\d{6}\.json$`), filepath.Base(names[0]))

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--result-dir", dir}, "add --save-result, or give --output"},
		{[]string{"--save-result", "--output", filepath.Join(dir, "x.json")}, "--save-result and --output both name the results file"},
	} {
		res := invoke(t, append(gen, c.args...)...)
		assert.Equal(t, ExitUsage, res.code, "%v", c.args)
		assert.Contains(t, res.stderr, c.want, "%v", c.args)
	}
}

func TestVLLMResultName(t *testing.T) {
	at := time.Date(2026, 12, 4, 1, 30, 5, 0, time.UTC)
	assert.Equal(t, "benchserve-10.0qps-Llama-3.1-8B-20261204-013005.json", vllmResultName(rateList{10}, 0, "meta-llama/Llama-3.1-8B", at))
	assert.Equal(t, "benchserve-infqps-concurrency8-20261204-013005.json", vllmResultName(nil, 8, "", at))
}
