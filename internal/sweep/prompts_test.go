package sweep_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/sweep"
)

func TestLoadPromptSetBuiltins(t *testing.T) {
	want := map[string]int{"short": 5, "medium": 5, "long": 3, "thinking": 3} // the reference's counts
	for name, n := range want {
		t.Run(name, func(t *testing.T) {
			got, err := sweep.LoadPromptSet(name)
			require.NoError(t, err, "builtin prompt set %q must load", name)
			assert.Len(t, got, n, "builtin %q has %d prompts", name, n)
			for i, msgs := range got {
				require.Len(t, msgs, 1, "builtin %q prompt %d is one message (flat format)", name, i)
				assert.Equal(t, "user", msgs[0]["role"], "builtin %q prompt %d is a user message", name, i)
				assert.NotEmpty(t, msgs[0]["content"], "builtin %q prompt %d has content", name, i)
			}
		})
	}
	long, err := sweep.LoadPromptSet("long")
	require.NoError(t, err)
	for i, msgs := range long {
		words := len(strings.Fields(msgs[0]["content"].(string)))
		assert.GreaterOrEqual(t, words, 200, "long prompt %d should be multi-paragraph (words=%d)", i, words)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestLoadPromptSetFormats(t *testing.T) {
	flat := writeFile(t, "flat.json", `[{"role":"user","content":"a"},{"role":"user","content":"b"}]`)
	got, err := sweep.LoadPromptSet(flat)
	require.NoError(t, err)
	assert.Equal(t, 2, len(got), "flat file: one prompt per message")
	assert.Equal(t, "b", got[1][0]["content"], "flat file: second prompt is the second message")

	multi := writeFile(t, "multi.json", `[[{"role":"system","content":"s"},{"role":"user","content":"u1"}],[{"role":"user","content":"u2"}]]`)
	got, err = sweep.LoadPromptSet(multi)
	require.NoError(t, err)
	require.Len(t, got, 2, "multi-message file: one prompt per inner list")
	assert.Len(t, got[0], 2, "first chat history keeps both messages")
	assert.Equal(t, "system", got[0][0]["role"], "first chat history starts with the system message")
	assert.Equal(t, "u2", got[1][0]["content"])
}

func TestLoadPromptSetErrors(t *testing.T) {
	_, err := sweep.LoadPromptSet(filepath.Join(t.TempDir(), "nope.json"))
	assert.ErrorIs(t, err, sweep.ErrPromptSetNotFound, "missing file")
	assert.ErrorContains(t, err, "Builtin names are: ['long', 'medium', 'short', 'thinking']", "missing file lists builtin names")

	cases := map[string]struct{ body, want string }{
		"empty list":   {`[]`, "prompt file must be a non-empty JSON list"},
		"object":       {`{"role":"user"}`, "prompt file must be a non-empty JSON list"},
		"bad json":     {`[{"role":`, "invalid JSON"},
		"string entry": {`["hello"]`, "prompt entries must be dict or list, got str"},
		"flat missing content": {`[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user"}]`,
			"entry 2: must include role and content"},
		"flat list after dict": {`[{"role":"user","content":"a"},[{"role":"user","content":"b"}]]`,
			"entry 1: must be a message object, got list"},
		"multi non-object message": {`[[{"role":"user","content":"a"}],[3]]`, "entry 1: message 0: must be a message object, got int"},
		"multi empty":              {`[[{"role":"user","content":"a"}],[]]`, "entry 1: messages must be a non-empty list"},
		"multi dict entry":         {`[[{"role":"user","content":"a"}],{"role":"user","content":"b"}]`, "entry 1: want a list of messages"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := sweep.LoadPromptSet(writeFile(t, "p.json", c.body))
			require.Error(t, err, "%s must be rejected", name)
			assert.Contains(t, err.Error(), c.want, "error for %s", name)
			assert.NotErrorIs(t, err, sweep.ErrPromptSetNotFound, "a malformed file is not a missing one")
		})
	}

	_, err = sweep.LoadPromptSet(writeFile(t, "two.json", `[{"role":"user"},{"content":"x"}]`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "entry 0:", "every bad entry is reported (0)")
	assert.Contains(t, err.Error(), "entry 1:", "every bad entry is reported (1)")
}

func TestLoadPromptSetRealData(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "realdata", "prompt_sets")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Skipf("no real prompt sets in %s (../../../shared/realdata, beside the module, is absent); skipping", dir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			got, err := sweep.LoadPromptSet(f)
			require.NoError(t, err, "real prompt set %s must load", f)
			assert.NotEmpty(t, got, "real prompt set %s has prompts", f)
			for i, msgs := range got {
				assert.NotEmpty(t, msgs, "prompt %d of %s has messages", i, f)
			}
		})
	}
}

func TestExpandOrder(t *testing.T) {
	tr, fa := true, false
	got := sweep.Expand([]string{"a", "b"}, []int{1, 4}, []*bool{&tr, &fa}, []string{"", `{"x":1}`}, 2)
	require.Len(t, got, 2*2*2*2*2, "full Cartesian product")
	var labels []string
	for _, p := range got[:10] {
		labels = append(labels, sweep.Label(p))
	}
	assert.Equal(t, []string{
		"a conc=1 rep=0 think=True",
		"a conc=1 rep=1 think=True",
		`a conc=1 rep=0 think=True eb={"x":1}`,
		`a conc=1 rep=1 think=True eb={"x":1}`,
		"a conc=1 rep=0 think=False",
		"a conc=1 rep=1 think=False",
		`a conc=1 rep=0 think=False eb={"x":1}`,
		`a conc=1 rep=1 think=False eb={"x":1}`,
		"a conc=4 rep=0 think=True",
		"a conc=4 rep=1 think=True",
	}, labels, "product order: prompt set, concurrency, thinking, extra body, repetition innermost")
	assert.Equal(t, "b", got[16].PromptSet, "second prompt set starts after all of the first")
	assert.Empty(t, sweep.Expand([]string{"a"}, []int{1}, []*bool{nil}, []string{""}, 0), "zero repetitions give no points")
}

func TestLabelTruncatesExtraBody(t *testing.T) {
	p := sweep.Point{PromptSet: "short", Concurrency: 2, Repetition: 1, ExtraBody: `{"temperature": 0.25, "top_p": 0.9}`}
	assert.Equal(t, `short conc=2 rep=1 eb={"temperature": 0.25`, sweep.Label(p), "eb is cut to 20 characters")
}

func TestPrependSystem(t *testing.T) {
	sys := map[string]any{"role": "system", "content": "S"}
	in := [][]map[string]any{
		{{"role": "user", "content": "u"}},
		{{"role": "system", "content": "own"}, {"role": "user", "content": "u"}},
	}
	out := sweep.PrependSystem(in, sys)
	require.Len(t, out, 2)
	assert.Equal(t, []map[string]any{sys, {"role": "user", "content": "u"}}, out[0], "system prepended to a prompt without one")
	assert.Equal(t, "own", out[1][0]["content"], "a prompt that starts with a system message is left alone")
	assert.Len(t, out[1], 2, "no double system message")
	assert.Len(t, in[0], 1, "input not modified")
}
