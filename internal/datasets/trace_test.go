package datasets_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/datasets"
)

// mooncakeTrace writes a Mooncake trace of n lines in the shape of the
// published one: every request opens with block 0 (a system prompt), each
// third one continues an earlier conversation (its blocks again), and
// timestamps advance by 3 ms with pairs arriving together.
func mooncakeTrace(t *testing.T, n int) (path string, lines []string) {
	t.Helper()
	next := int64(1)
	var prev []int64
	for i := range n {
		ids := []int64{0}
		if i%3 == 2 && prev != nil {
			ids = append(ids, prev[1:]...)
		}
		for range 2 {
			ids = append(ids, next)
			next++
		}
		prev = ids
		in := len(ids)*16 - 5 // the last block cut short
		lines = append(lines, fmt.Sprintf(`{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": %s}`,
			i/2*3, in, 1+i%7, strings.ReplaceAll(fmt.Sprint(ids), " ", ", ")))
	}
	path = filepath.Join(t.TempDir(), "trace.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	return path, lines
}

func TestMooncakeReplaysTheTrace(t *testing.T) {
	path, _ := mooncakeTrace(t, 200)
	g := mustNew(t, datasets.Options{Name: "mooncake", Path: path, Seed: 7,
		Params: map[string]any{datasets.ParamTraceBlockSize: 16, datasets.ParamTraceScale: 0.5}})
	reqs, err := datasets.Collect(g, 0)
	require.NoError(t, err)
	require.Len(t, reqs, 200, "every line")
	for i, r := range reqs {
		assert.True(t, r.Timed, "request %d is timed", i)
		assert.Equal(t, time.Duration(i/2*3)*time.Millisecond/2, r.Arrival, "request %d: timestamp × 0.5", i)
		assert.Len(t, strings.Fields(content(r)), r.InputTokens, "request %d: input_length words", i)
		assert.Equal(t, fmt.Sprintf("mooncake-%d", i), r.ID, "stable id")
		assert.Equal(t, 1+i%7, r.OutputTokens, "output_length")
	}
	// Block 0 opens every prompt: the first 16 words are the same.
	w0 := strings.Fields(content(reqs[0]))[:16]
	for i, r := range reqs {
		assert.Equal(t, w0, strings.Fields(content(r))[:16], "request %d shares block 0", i)
	}
	// Request 2 continues request 1 (ids 0, 3, 4 then 0, 3, 4, 5, 6): its
	// prompt begins with request 1's whole blocks, byte for byte.
	one, two := content(reqs[1]), content(reqs[2])
	oneWords := strings.Fields(one)
	assert.True(t, strings.HasPrefix(two, strings.Join(oneWords[:32], " ")+" "), "equal hash ids give byte-identical prefixes")
	assert.NotEqual(t, strings.Fields(two)[32:48], oneWords[32:], "past the shared ids the texts differ")
	assert.Equal(t, 32, reqs[2].PrefixTokens, "blocks 0 and 3 sent whole before: 2×16 tokens expected cached (4 was cut short in request 1)")
	assert.Equal(t, 0, reqs[0].PrefixTokens, "the first request: nothing cached")
	assert.Equal(t, 16, reqs[1].PrefixTokens, "block 0 again")
	assert.Equal(t, "mooncake", reqs[2].Group, "one prefix space")

	again := bodies(t, mustNew(t, datasets.Options{Name: "mooncake", Path: path, Seed: 7,
		Params: map[string]any{datasets.ParamTraceBlockSize: 16, datasets.ParamTraceScale: 0.5}}))
	assert.Equal(t, bodies(t, g), again, "same seed: byte-identical request bodies")
	other := bodies(t, mustNew(t, datasets.Options{Name: "mooncake", Path: path, Seed: 8,
		Params: map[string]any{datasets.ParamTraceBlockSize: 16}}))
	assert.NotEqual(t, again[0], other[0], "another seed: other texts")
	assert.Equal(t, map[string]any{datasets.ParamTraceBlockSize: 16, datasets.ParamTraceScale: 0.5}, g.Spec().Params, "the payload records the parameters")
	assert.Equal(t, path, g.Spec().Path, "and the file")

	n, err := datasets.Collect(mustNew(t, datasets.Options{Name: "mooncake", Path: path, NumPrompts: 5}), 0)
	require.NoError(t, err)
	assert.Len(t, n, 5, "--num-prompts takes the trace's first N")
}

func TestTraceNamesTheBadLine(t *testing.T) {
	path, lines := mooncakeTrace(t, 10)
	lines[6] = `{"timestamp": 9, "input_length": 10, "output_length": "many"}`
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600))
	reqs, err := datasets.Collect(mustNew(t, datasets.Options{Name: "mooncake", Path: path}), 0)
	assert.EqualError(t, err, path+`:7: field "output_length": want an integer, got a JSON string`, "file, line and field")
	assert.Nil(t, reqs, "Collect stops at the error")

	csv := filepath.Join(t.TempDir(), "azure.csv")
	require.NoError(t, os.WriteFile(csv, []byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:47.0,-3,1\n"), 0o600))
	_, err = datasets.Collect(mustNew(t, datasets.Options{Name: "azure", Path: csv}), 0)
	assert.EqualError(t, err, csv+`:3: field "ContextTokens": "-3": want an integer >= 1 (tokens)`, "file, line and field")
}

func TestAzureReplaysTheTrace(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "azure.csv")
	require.NoError(t, os.WriteFile(csv, []byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,37,4\n2023-11-16 18:15:46.7805900,37,9\n"), 0o600))
	reqs, err := datasets.Collect(mustNew(t, datasets.Options{Name: "azure", Path: csv, Params: map[string]any{datasets.ParamTraceScale: 2}}), 0)
	require.NoError(t, err)
	require.Len(t, reqs, 2, "every row")
	assert.Equal(t, []time.Duration{0, 200 * time.Millisecond}, []time.Duration{reqs[0].Arrival, reqs[1].Arrival}, "offsets from the first row, × 2")
	assert.NotEqual(t, content(reqs[0]), content(reqs[1]), "no hash ids: nothing shared")
	assert.Len(t, strings.Fields(content(reqs[1])), 37, "ContextTokens words")
	assert.Zero(t, reqs[1].PrefixTokens, "no reuse built in")
	assert.Empty(t, reqs[1].Group, "no prefix group")
}

func TestTraceOptionsChecked(t *testing.T) {
	path, _ := mooncakeTrace(t, 1)
	for _, tc := range []struct {
		o    datasets.Options
		want string
	}{
		{datasets.Options{Name: "mooncake"}, "datasets: mooncake: no trace file: give --dataset-path"},
		{datasets.Options{Name: "azure", Path: filepath.Join(t.TempDir(), "none.csv")}, "no such file"},
		{datasets.Options{Name: "mooncake", Path: path, Params: map[string]any{datasets.ParamTraceScale: 0}}, "trace_scale 0: want a factor > 0"},
		{datasets.Options{Name: "mooncake", Path: path, Params: map[string]any{datasets.ParamTraceBlockSize: 0}}, "trace_block_size 0: want >= 1 token"},
		{datasets.Options{Name: "mooncake", Path: path, Params: map[string]any{"random_input_len": 3}}, "random_input_len"},
	} {
		_, err := datasets.New(tc.o)
		assert.ErrorContains(t, err, tc.want, "%+v", tc.o)
	}
}

func TestNewTraceReadsFromOpen(t *testing.T) {
	open := func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(`{"timestamp": 5, "input_length": 3, "output_length": 2}` + "\n")), nil
	}
	g, err := datasets.NewTrace("mooncake", datasets.Options{Path: "stdin"}, open)
	require.NoError(t, err)
	reqs, err := datasets.Collect(g, 0)
	require.NoError(t, err)
	require.Len(t, reqs, 1, "the one line")
	assert.Equal(t, 5*time.Millisecond, reqs[0].Arrival, "its timestamp")
	_, err = datasets.NewTrace("sharegpt", datasets.Options{}, open)
	assert.ErrorContains(t, err, `trace format "sharegpt"`, "only trace formats")
}
