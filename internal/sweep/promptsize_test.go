package sweep_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/sweep"
)

// proxyTokens estimates a prompt's token count the way BPE tokenizers of
// the Qwen/cl100k family split text: a letter run costs one token per six
// letters, every digit one token, a punctuation run one token per two
// characters, a newline run one, and a run of several spaces (indentation)
// one per four. Not a tokenizer: a yardstick that treats prose, code,
// logs and numbers alike, so two prompts of the same kind and size get the
// same estimate.
func proxyTokens(s string) int {
	n := 0
	for _, tok := range proxyPattern.FindAllString(s, -1) {
		r := []rune(tok)
		switch c := r[0]; {
		case c >= '0' && c <= '9', c == '\n':
			n++
		case c == ' ' || c == '\t':
			if len(r) > 1 {
				n += int(math.Ceil(float64(len(r)) / 4))
			}
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= 0xC0:
			n += int(math.Ceil(float64(len(r)) / 6))
		default:
			n += int(math.Ceil(float64(len(r)) / 2))
		}
	}
	return n
}

var proxyPattern = regexp.MustCompile(`[A-Za-z\x{C0}-\x{FFFF}]+|[0-9]|[^\sA-Za-z0-9\x{C0}-\x{FFFF}]+|\n+|[ \t]+`)

// referenceProxyTokens are proxyTokens of each prompt of the reference's
// builtin sets (vllm-mlx bench_serve_prompts/*.json), in file order.
var referenceProxyTokens = map[string][]int{
	"short":    {17, 20, 17, 19, 16},
	"medium":   {768, 388, 800, 638, 728},
	"long":     {2559, 2663, 757},
	"thinking": {331, 490, 451},
}

// TestBuiltinSetsMatchReferenceSizes: our own texts, the reference's
// counts, and every prompt within 10% of the reference's prompt at the
// same position, so rows of a history stay comparable.
func TestBuiltinSetsMatchReferenceSizes(t *testing.T) {
	for name, want := range referenceProxyTokens {
		got, err := sweep.LoadPromptSet(name)
		require.NoError(t, err, "builtin %s", name)
		require.Len(t, got, len(want), "builtin %s has the reference's number of prompts", name)
		for i, msgs := range got {
			n := proxyTokens(msgs[0]["content"].(string))
			assert.InEpsilonf(t, want[i], n, 0.10, "builtin %s prompt %d: %d proxy tokens, reference %d", name, i, n, want[i])
		}
	}
}

// TestProxyTokensAgreeWithReferenceFiles checks the table above against
// the reference's files when they are at hand.
func TestProxyTokensAgreeWithReferenceFiles(t *testing.T) {
	dir := referencePromptsDir(t)
	for name, want := range referenceProxyTokens {
		data, err := os.ReadFile(filepath.Join(dir, name+".json"))
		require.NoError(t, err, "reference %s", name)
		var msgs []map[string]string
		require.NoError(t, json.Unmarshal(data, &msgs), "reference %s is flat", name)
		var got []int
		for _, m := range msgs {
			got = append(got, proxyTokens(m["content"]))
		}
		assert.Equal(t, want, got, "reference %s proxy tokens", name)
	}
}

func referencePromptsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("BENCHSERVE_REFERENCE_PROMPTS")
	if dir == "" {
		dir = "/work/shared/realdata/prompt_sets"
	}
	if _, err := os.Stat(filepath.Join(dir, "short.json")); err != nil {
		t.Skipf("the reference's prompt files are not here (%s/short.json: %v); set BENCHSERVE_REFERENCE_PROMPTS to a vllm-mlx bench_serve_prompts/ directory to run this test", dir, err)
	}
	return dir
}

// TestLoadPromptSetFromDir: with a prompts dir, the builtin labels load the
// files there (the reference's own prompts reproduce its rows exactly).
func TestLoadPromptSetFromDir(t *testing.T) {
	dir := referencePromptsDir(t)
	got, err := sweep.LoadPromptSetFrom(dir, "thinking")
	require.NoError(t, err, "thinking from %s", dir)
	data, err := os.ReadFile(filepath.Join(dir, "thinking.json"))
	require.NoError(t, err, "read reference thinking")
	var want []map[string]any
	require.NoError(t, json.Unmarshal(data, &want), "decode reference thinking")
	require.Len(t, got, len(want), "one prompt per reference entry")
	for i := range want {
		assert.Equal(t, want[i]["content"], got[i][0]["content"], "prompt %d is the reference's text", i)
	}
}

func TestLoadPromptSetFromDirErrors(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "short.json"), []byte(`[{"role":"user","content":"mine"}]`), 0o600), "write")
	got, err := sweep.LoadPromptSetFrom(dir, "short")
	require.NoError(t, err, "short from dir")
	assert.Equal(t, "mine", got[0][0]["content"], "the dir's file wins over the embedded set")

	_, err = sweep.LoadPromptSetFrom(dir, "long")
	assert.True(t, errors.Is(err, sweep.ErrPromptSetNotFound), "a builtin name missing from the dir is not found, not the embedded set: %v", err)
	assert.ErrorContains(t, err, filepath.Join(dir, "long.json"), "names the file looked for")

	path := filepath.Join(dir, "custom.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"role":"user","content":"c"}]`), 0o600), "write custom")
	got, err = sweep.LoadPromptSetFrom(t.TempDir(), path)
	require.NoError(t, err, "paths are not affected by the dir")
	assert.Equal(t, "c", got[0][0]["content"], "custom file")
}
