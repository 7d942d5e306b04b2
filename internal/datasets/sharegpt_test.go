package datasets_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/datasets"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
}

const shareGPT = `[
  {"id": "a", "conversations": [
    {"from": "human", "value": "one two three"},
    {"from": "gpt", "value": "four five"},
    {"from": "human", "value": "six seven"},
    {"from": "gpt", "value": "eight nine ten eleven"}]},
  {"id": "b", "conversations": [
    {"from": "system", "value": "be brief"},
    {"from": "human", "value": "hello"}]}
]`

func TestShareGPTReplaysEveryTurn(t *testing.T) {
	g := mustNew(t, datasets.Options{Name: "sharegpt", Path: writeFile(t, "sg.json", shareGPT)})
	reqs, err := datasets.Collect(g, 0)
	require.NoError(t, err)
	require.Len(t, reqs, 3, "two turns of a, one of b")
	a0, a1, b0 := reqs[0], reqs[1], reqs[2]
	assert.Equal(t, "sharegpt-a.0", a0.ID)
	assert.Len(t, a0.Messages, 1)
	assert.Equal(t, 3, a0.InputTokens)
	assert.Equal(t, 2, a0.OutputTokens, "the file's answer is the asked length")
	assert.Equal(t, "sharegpt-a.1", a1.ID)
	require.Len(t, a1.Messages, 3, "the second turn carries the history")
	assert.Equal(t, "assistant", a1.Messages[1]["role"])
	assert.Equal(t, "four five", a1.Messages[1]["content"])
	assert.Equal(t, 7, a1.InputTokens)
	assert.Equal(t, 5, a1.PrefixTokens, "the first turn and its answer are shared")
	assert.Equal(t, 4, a1.OutputTokens)
	assert.Equal(t, a0.Group, a1.Group, "one conversation, one group")
	assert.Equal(t, 1, a1.Turn)
	assert.Equal(t, "system", b0.Messages[0]["role"])
	assert.Equal(t, 0, b0.OutputTokens, "no answer in the file: the workload default")

	filtered := mustNew(t, datasets.Options{Name: "sharegpt", Path: writeFile(t, "sg.json", shareGPT),
		Params: map[string]any{"min_input_len": 3, "max_input_len": 5}})
	reqs, err = datasets.Collect(filtered, 0)
	require.NoError(t, err)
	require.Len(t, reqs, 2, "the 7-token turn and the 3-token one pass, only the 7 is cut")
	assert.Equal(t, "sharegpt-a.0", reqs[0].ID)
	assert.Equal(t, "sharegpt-b.0", reqs[1].ID)
}

func TestConversationFileErrorsNameFileLineAndField(t *testing.T) {
	bad := writeFile(t, "bad.json", "[\n  {\"id\": \"a\", \"conversations\": [{\"from\": \"human\", \"value\": \"x\"}]},\n  {\"id\": \"b\", \"conversations\": [\n    {\"from\": \"robot\", \"value\": \"x\"}]}\n]")
	_, err := datasets.Collect(mustNew(t, datasets.Options{Name: "sharegpt", Path: bad}), 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+":3: record 1 (id b): conversations[0].from: want human, gpt or system, got \"robot\"")

	jl := writeFile(t, "bad.jsonl", "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n\n{\"messages\": [{\"role\": \"user\", \"content\": 5}]}\n")
	_, err = datasets.Collect(mustNew(t, datasets.Options{Name: "jsonl", Path: jl}), 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), jl+":3: messages[0].content: want a string")

	_, err = datasets.New(datasets.Options{Name: "sharegpt"})
	assert.ErrorContains(t, err, "dataset_path: want the file to read")
}

func TestJSONLSendsEachLineUpToItsLastUserMessage(t *testing.T) {
	jl := writeFile(t, "c.jsonl", `{"messages": [{"role": "user", "content": "a b"}, {"role": "assistant", "content": "c"}, {"role": "user", "content": "d e f"}, {"role": "assistant", "content": "g h"}]}
{"messages": [{"role": "user", "content": "x"}]}
`)
	reqs, err := datasets.Collect(mustNew(t, datasets.Options{Name: "jsonl", Path: jl, NumPrompts: 5}), 0)
	require.NoError(t, err)
	require.Len(t, reqs, 2, "one request per line")
	assert.Len(t, reqs[0].Messages, 3)
	assert.Equal(t, 6, reqs[0].InputTokens)
	assert.Equal(t, 2, reqs[0].OutputTokens, "the reference answer's length")
	reqs, err = datasets.Collect(mustNew(t, datasets.Options{Name: "jsonl", Path: jl, NumPrompts: 1}), 0)
	require.NoError(t, err)
	assert.Len(t, reqs, 1, "num_prompts bounds the stream")
}
