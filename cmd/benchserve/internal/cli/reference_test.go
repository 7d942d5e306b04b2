package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// TestWorkloadWarningsAndReferenceLayout: a workload the reference accepts
// with a numeric id runs, the warning is on stderr before the run, and the
// payload keeps the reference's layout: path as given, defaults and
// extra_body in file order.
func TestWorkloadWarningsAndReferenceLayout(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	t.Chdir(dir)
	writeWorkloadFile(t, dir, "w.json", `{"defaults": {"max_tokens": 32, "extra_body": {"top_p": 0.9, "seed": 3}, "checks": {"min_chars": 1, "finish_reason": ["stop", "length"]}},
 "cases": [{"id": 5, "messages": [{"role": "user", "content": "hi"}]}]}`)
	res := invoke(t, "--url", srv.URL, "--workload", "./w.json", "--repetitions", "1", "--output", "out.json")
	require.Equal(t, ExitOK, res.code, "the reference runs this workload")
	warning := `benchserve: warning: ./w.json: case "5": id: 5 is not a string; used as "5" (the reference applies str())`
	assert.Contains(t, res.stderr, warning+"\n", "the warning names file, case and field")
	assert.Less(t, strings.Index(res.stderr, warning), strings.Index(res.stderr, "5 ... "), "the warning comes before the run")

	data, err := os.ReadFile("out.json")
	require.NoError(t, err, "results file")
	text := string(data)
	assert.Contains(t, text, `"path": "w.json",`, "str(Path('./w.json').expanduser()): as given, not absolute")
	assert.Contains(t, text, `"defaults": {
      "max_tokens": 32,
      "extra_body": {
        "top_p": 0.9,
        "seed": 3
      },
      "checks": {
        "min_chars": 1,
        "finish_reason": [
          "stop",
          "length"
        ]
      }
    },`, "defaults in file order, as json.dumps(payload, indent=2) writes them")
	assert.Contains(t, text, `"extra_body": {
          "top_p": 0.9,
          "seed": 3
        },`, "request.extra_body in file order")
	p := readPayload(t, "out.json")
	require.Len(t, p.Results, 1, "one record")
	assert.Equal(t, "5", p.Results[0].CaseID, "case_id str(5)")
}

// TestPromptsDir: --prompts-dir (and $BENCHSERVE_PROMPTS_DIR) loads the
// builtin names from a directory, here the reference's own prompt files.
func TestPromptsDir(t *testing.T) {
	dir := "/work/shared/realdata/prompt_sets"
	if d := os.Getenv("BENCHSERVE_REFERENCE_PROMPTS"); d != "" {
		dir = d
	}
	data, err := os.ReadFile(filepath.Join(dir, "short.json"))
	if err != nil {
		t.Skipf("the reference's prompt files are not here (%v); set BENCHSERVE_REFERENCE_PROMPTS to a vllm-mlx bench_serve_prompts/ directory to run this test", err)
	}
	var want []map[string]string
	require.NoError(t, json.Unmarshal(data, &want), "reference short.json")
	srv := fixtures.Start(t, fixtures.Options{})
	sent := func(from int) []string {
		var out []string
		for _, r := range srv.ChatRequests()[from:] {
			msgs, _ := r.Body["messages"].([]any)
			if len(msgs) > 0 {
				m, _ := msgs[0].(map[string]any)
				out = append(out, m["content"].(string))
			}
		}
		return out
	}
	args := []string{"--url", srv.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0", "--skip-preflight-token-count", "--format", "csv"}

	res := invoke(t, append(args, "--prompts-dir", dir)...)
	require.Equal(t, ExitOK, res.code, "sweep with --prompts-dir")
	assert.Equal(t, []string{want[0]["content"]}, sent(0), "the reference's first short prompt was sent (one request at concurrency 1)")
	assert.Contains(t, res.stdout, ",short,1,256,", "rows keep the builtin label")

	n := len(srv.ChatRequests())
	res = invokeEnv(t, map[string]string{"BENCHSERVE_PROMPTS_DIR": dir}, args...)
	require.Equal(t, ExitOK, res.code, "sweep with $BENCHSERVE_PROMPTS_DIR")
	assert.Contains(t, sent(n), want[0]["content"], "the environment variable works too")

	srvW := fixtures.Start(t, fixtures.Options{})
	res = invoke(t, "--url", srvW.URL, "--workload", smoke, "--repetitions", "1", "--prompts-dir", dir, "--output", filepath.Join(t.TempDir(), "o.json"))
	assert.Contains(t, res.stderr, "Warning: --workload mode ignores sweep-only args: --prompts-dir="+dir+"\n", "ignored in workload mode, with the other sweep-only flags")

	help := invoke(t, "--help")
	assert.Contains(t, help.stdout, "--prompts-dir Directory", "--prompts-dir documented")
	assert.Contains(t, help.stdout, "$BENCHSERVE_PROMPTS_DIR", "its environment default documented")
}
