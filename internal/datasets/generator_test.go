package datasets_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/tokens/builtin"
)

func mustNew(t *testing.T, o datasets.Options) datasets.Generator {
	t.Helper()
	g, err := datasets.New(o)
	require.NoError(t, err, "datasets.New(%+v)", o)
	return g
}

func content(r datasets.Request) string { return r.Messages[len(r.Messages)-1]["content"].(string) }

// bodies marshals every request's case as the engine would see it, to
// compare runs byte for byte.
func bodies(t *testing.T, g datasets.Generator) []string {
	t.Helper()
	reqs, err := datasets.Collect(g, 0)
	require.NoError(t, err)
	var out []string
	for i, r := range reqs {
		c := r.Case(i, datasets.OutputControl{IgnoreEOS: true, MinTokens: true})
		b, err := json.Marshal(struct {
			ID    string
			Msgs  any
			Max   *int
			Extra json.RawMessage
		}{c.ID, c.Messages, c.MaxTokens, c.ExtraBodyJSON})
		require.NoError(t, err)
		out = append(out, string(b))
	}
	return out
}

func TestRandomIsDeterministicUnderSeed(t *testing.T) {
	o := datasets.Options{Name: "random", NumPrompts: 20, Seed: 7,
		Params: map[string]any{"random_input_len": 64.0, "random_output_len": 8.0, "random_range_ratio": 0.5}}
	a, b := bodies(t, mustNew(t, o)), bodies(t, mustNew(t, o))
	assert.Equal(t, a, b, "the same seed must give byte-identical request bodies")
	o.Seed = 8
	assert.NotEqual(t, a, bodies(t, mustNew(t, o)), "another seed must give other prompts")
	g := mustNew(t, o)
	assert.Equal(t, bodies(t, g), bodies(t, g), "each Requests call must start the sequence anew")
}

// vLLM's rule (RandomDataset.get_sampling_params): floor at the bottom,
// ceil at the top, both ends drawn; where len·(1+ratio) is not whole the
// top rounds up (older vLLM truncated it: 13, not 14, below).
func TestLengthRangeRoundsTheTopUpAsVLLM(t *testing.T) {
	for _, tc := range []struct {
		r      datasets.LengthRange
		lo, hi int
	}{
		{datasets.LengthRange{Mean: 10, Ratio: 0.33}, 6, 14},
		{datasets.LengthRange{Mean: 100, Ratio: 0.25}, 75, 125},
		{datasets.LengthRange{Mean: 3, Ratio: 0.5}, 1, 5},
		{datasets.LengthRange{Mean: 1, Ratio: 0.9}, 1, 2},
		{datasets.LengthRange{Mean: 512, Ratio: 0}, 512, 512},
	} {
		lo, hi := tc.r.Bounds()
		assert.Equal(t, [2]int{tc.lo, tc.hi}, [2]int{lo, hi}, "%+v", tc.r)
		seen := map[int]bool{}
		r := rand.New(rand.NewPCG(1, 2))
		for range 2000 {
			n := tc.r.Draw(r)
			require.True(t, n >= lo && n <= hi, "%+v: %d outside [%d, %d]", tc.r, n, lo, hi)
			seen[n] = true
		}
		assert.Len(t, seen, hi-lo+1, "%+v: every length of the range is drawn, both ends too", tc.r)
	}
}

func TestRandomLengthsFollowVLLMRangeAndCountExactly(t *testing.T) {
	o200k, err := builtin.New("o200k_base")
	require.NoError(t, err)
	cl100k, err := builtin.New("cl100k_base")
	require.NoError(t, err)
	g := mustNew(t, datasets.Options{Name: "random", NumPrompts: 200, Seed: 1,
		Params: map[string]any{"random_input_len": 100, "random_output_len": 10, "random_range_ratio": 0.25}})
	reqs, err := datasets.Collect(g, 0)
	require.NoError(t, err)
	require.Len(t, reqs, 200)
	seenIn := map[int]bool{}
	for _, r := range reqs {
		assert.GreaterOrEqual(t, r.InputTokens, 75, "%s: input below mean·(1-ratio)", r.ID)
		assert.LessOrEqual(t, r.InputTokens, 125, "%s: input above mean·(1+ratio)", r.ID)
		assert.GreaterOrEqual(t, r.OutputTokens, 7, "%s: output below floor(10·0.75)", r.ID)
		assert.LessOrEqual(t, r.OutputTokens, 13, "%s: output above ceil(10·1.25)", r.ID)
		seenIn[r.InputTokens] = true
		text := content(r)
		assert.Len(t, strings.Fields(text), r.InputTokens, "%s: words", r.ID)
		for _, c := range []*builtin.Counter{o200k, cl100k} {
			n, err := c.Count(context.Background(), text)
			require.NoError(t, err)
			assert.Equal(t, r.InputTokens, n, "%s: %s count", r.ID, c.Method())
		}
	}
	assert.Greater(t, len(seenIn), 20, "200 draws over 51 lengths must spread out")
}

func TestRandomRatioZeroGivesExactLengths(t *testing.T) {
	g := mustNew(t, datasets.Options{Name: "random", NumPrompts: 20,
		Params: map[string]any{"random_input_len": 512, "random_output_len": 64, "random_range_ratio": 0}})
	reqs, err := datasets.Collect(g, 0)
	require.NoError(t, err)
	require.Len(t, reqs, 20)
	for _, r := range reqs {
		assert.Equal(t, 512, r.InputTokens, r.ID)
		assert.Equal(t, 64, r.OutputTokens, r.ID)
		c := r.Case(0, datasets.OutputControl{IgnoreEOS: true})
		require.NotNil(t, c.MaxTokens, r.ID)
		assert.Equal(t, 64, *c.MaxTokens, r.ID)
		assert.JSONEq(t, `{"ignore_eos": true}`, string(c.ExtraBodyJSON), r.ID)
	}
}

func TestPrefixRepetitionSharesEachGroupsPrefix(t *testing.T) {
	g := mustNew(t, datasets.Options{Name: "prefix_repetition", NumPrompts: 9, Seed: 3,
		Params: map[string]any{"prefix_repetition_prefix_len": 32, "prefix_repetition_suffix_len": 8,
			"prefix_repetition_num_prefixes": 3, "prefix_repetition_output_len": 4}})
	reqs, err := datasets.Collect(g, 0)
	require.NoError(t, err)
	require.Len(t, reqs, 9)
	prefixOf := func(r datasets.Request) string { return strings.Join(strings.Fields(content(r))[:32], " ") }
	for i, r := range reqs {
		first := reqs[i%3]
		assert.Equal(t, first.Group, r.Group, "%s: group", r.ID)
		assert.Equal(t, prefixOf(first), prefixOf(r), "%s: prefix of its group", r.ID)
		assert.Len(t, strings.Fields(content(r)), 40, "%s: prefix + suffix words", r.ID)
		assert.Equal(t, 40, r.InputTokens, r.ID)
		want := 32
		if i < 3 {
			want = 0
		}
		assert.Equal(t, want, r.PrefixTokens, "%s: shared tokens by construction", r.ID)
	}
	assert.NotEqual(t, prefixOf(reqs[0]), prefixOf(reqs[1]), "groups must have different prefixes")
	assert.NotEqual(t, content(reqs[0]), content(reqs[3]), "suffixes must differ within a group")
}

func TestBlockIsAFunctionOfItsID(t *testing.T) {
	p := datasets.NewPrompter()
	assert.Equal(t, p.Block(42, 512), p.Block(42, 512), "equal ids must give byte-identical blocks")
	assert.NotEqual(t, p.Block(42, 512), p.Block(43, 512))
	assert.Len(t, strings.Fields(datasets.Join(p.Block(1, 16), "", p.Block(2, 16))), 32, "joined blocks add up")
}

func TestBadOptionsNameTheParameter(t *testing.T) {
	for _, tc := range []struct {
		o    datasets.Options
		want string
	}{
		{datasets.Options{Name: "random", Params: map[string]any{"random_input_length": 5}}, `unknown parameter "random_input_length"`},
		{datasets.Options{Name: "random", Params: map[string]any{"random_input_len": 1.5}}, "random_input_len: want an integer"},
		{datasets.Options{Name: "random", Params: map[string]any{"random_range_ratio": 1.0}}, "random_range_ratio 1: want 0 <= ratio < 1"},
		{datasets.Options{Name: "prefix_repetition", Params: map[string]any{"prefix_repetition_num_prefixes": 0}}, "prefix_repetition_num_prefixes 0: want >= 1"},
	} {
		_, err := datasets.New(tc.o)
		if assert.Error(t, err, "%+v", tc.o) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	_, err := datasets.New(datasets.Options{Name: "nosuch"})
	assert.True(t, errors.Is(err, datasets.ErrUnknown), "unknown name: %v", err)
}

// BenchmarkRandomRequests measures the random generator: requests of 512
// input tokens generated per second and bytes allocated per request.
func BenchmarkRandomRequests(b *testing.B) {
	g, err := datasets.New(datasets.Options{Name: "random", NumPrompts: 1 << 30,
		Params: map[string]any{"random_input_len": 512, "random_output_len": 64}})
	require.NoError(b, err)
	next, stop := iter.Pull2(g.Requests())
	defer stop()
	b.ReportAllocs()
	for b.Loop() {
		if _, err, ok := next(); !ok || err != nil {
			b.Fatal("the stream ended")
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

func TestRandomMixDrawsComponentsByWeight(t *testing.T) {
	g := mustNew(t, datasets.Options{Name: "random", NumPrompts: 1000, Seed: 4,
		Params: map[string]any{"random_mix": "16,4:3; 64,8:1"}})
	reqs, err := datasets.Collect(g, 0)
	require.NoError(t, err)
	count := map[[2]int]int{}
	for _, r := range reqs {
		count[[2]int{r.InputTokens, r.OutputTokens}]++
	}
	assert.Len(t, count, 2, "ratio 0: exactly the two pairs: %v", count)
	// 1000 draws at p = 0.75: the binomial sd is 13.7, so 750 ± 60 holds
	// at more than 4 sd.
	assert.InDelta(t, 750, count[[2]int{16, 4}], 60, "weights 3:1")
	assert.Equal(t, "16,4:3; 64,8:1", g.Spec().Params["random_mix"], "recorded as given")
	_, err = datasets.New(datasets.Options{Name: "random", Params: map[string]any{"random_mix": "16,4"}})
	assert.ErrorContains(t, err, `random_mix: component 1 "16,4": want ISL,OSL:WEIGHT`)
}

// A generator that makes its prompts refuses a path, which nothing would
// read (a newcomer's review: --dataset-path was ignored with random).
func TestMadeUpPromptsRefuseAPath(t *testing.T) {
	for _, name := range []string{"random", "prefix_repetition", datasets.SessionsName} {
		_, err := datasets.New(datasets.Options{Name: name, Path: "sg.json", NumPrompts: 2})
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), name+` makes its prompts and reads no file: drop its path (--dataset-path) "sg.json"`)
		_, err = datasets.New(datasets.Options{Name: name, NumPrompts: 2})
		assert.NoError(t, err, "%s without a path", name)
	}
}
