package tokens_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/tokens"
)

// fakeTokenizer counts a word 1 to 3 tokens (1 + its length mod 3), the
// first word of a text one more (no leading space), and a chat prompt 7
// more for its template; past limit words (when > 0) it miscounts by one,
// a server that does not add up.
type fakeTokenizer struct {
	limit    int
	requests int
}

func wordTokens(w string) int { return 1 + len(w)%3 }

func (f *fakeTokenizer) Count(_ context.Context, text string) (int, error) {
	f.requests++
	words := strings.Fields(text)
	n := 0
	for i, w := range words {
		n += wordTokens(w)
		if i == 0 {
			n++
		}
	}
	if f.limit > 0 && len(words) > f.limit {
		n++
	}
	return n, nil
}

func (f *fakeTokenizer) Method() tokens.Method { return tokens.MethodServer }

func (f *fakeTokenizer) PromptTokens(ctx context.Context, text string) (int, error) {
	n, err := f.Count(ctx, text)
	return n + 7, err
}

// candidates are words of every length 2 to 9, each distinct.
func candidates() []string {
	var out []string
	for i := range 300 {
		out = append(out, fmt.Sprintf("w%s%d", strings.Repeat("x", i%8), i))
	}
	return out
}

func TestCalibrationBuildsPromptsOfExactlyNTokens(t *testing.T) {
	for _, viaTokenize := range []bool{true, false} {
		f := &fakeTokenizer{}
		c := tokens.Calibrator{Prompt: f, Want: 40}
		want := tokens.MethodUsage
		if viaTokenize {
			c.Text, want = f, tokens.MethodServer
		}
		cal, err := c.Calibrate(context.Background(), candidates())
		require.NoError(t, err)
		assert.Equal(t, want, cal.Method)
		// The template's 7 and the anchor's first-word token.
		assert.Equal(t, 8, cal.Overhead)
		assert.GreaterOrEqual(t, len(cal.Words), 40)
		assert.Equal(t, cal.Words[0].Text, cal.Anchor)
		assert.Equal(t, 1, cal.Words[0].Tokens)
		counts := map[int]int{}
		for _, w := range cal.Words {
			assert.Equal(t, wordTokens(w.Text), w.Tokens, "kept %q", w.Text)
			counts[w.Tokens]++
		}
		assert.Len(t, counts, 3, "words of 1, 2 and 3 tokens are all kept")
		assert.Equal(t, f.requests, cal.Requests)
		assert.Less(t, cal.Tried, len(candidates()), "stops once it has Want words")

		// Every prompt of the random generator counts as asked, the
		// template included.
		g, err := datasets.New(datasets.Options{Name: "random", NumPrompts: 50, Seed: 9,
			Prompter: datasets.CalibratedPrompter(cal),
			Params:   map[string]any{"random_input_len": 512, "random_range_ratio": 0.5}})
		require.NoError(t, err)
		assert.Equal(t, want, g.Spec().Counting)
		reqs, err := datasets.Collect(g, 0)
		require.NoError(t, err)
		require.Len(t, reqs, 50)
		lengths := map[int]bool{}
		for _, r := range reqs {
			got, err := f.PromptTokens(context.Background(), r.Messages[0]["content"].(string))
			require.NoError(t, err)
			assert.Equal(t, r.InputTokens, got, r.ID)
			lengths[r.InputTokens] = true
		}
		assert.Greater(t, len(lengths), 10, "the lengths vary with the range ratio")
	}
}

func TestCalibratedGeneratorsRefuseLengthsBelowTheTemplate(t *testing.T) {
	cal, err := tokens.Calibrator{Prompt: &fakeTokenizer{}, Want: 20}.Calibrate(context.Background(), candidates())
	require.NoError(t, err)
	p := datasets.CalibratedPrompter(cal)
	_, err = datasets.New(datasets.Options{Name: "random", NumPrompts: 1, Prompter: p,
		Params: map[string]any{"random_input_len": 8}})
	assert.ErrorContains(t, err, "random_input_len 8 (8 at the range's low end): the chat template takes 8 tokens of every prompt on this server: want more than 8")
	_, err = datasets.New(datasets.Options{Name: "prefix_repetition", NumPrompts: 1, Prompter: p,
		Params: map[string]any{"prefix_repetition_suffix_len": 5}})
	assert.ErrorContains(t, err, "suffix_len 5: the chat template takes 8 tokens")
}

func TestCalibrationRefusesAServerThatDoesNotAddUp(t *testing.T) {
	f := &fakeTokenizer{limit: 50}
	_, err := tokens.Calibrator{Prompt: f, Want: 80}.Calibrate(context.Background(), candidates())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not add up: usage.prompt_tokens is 9 for the anchor")
	assert.Contains(t, err.Error(), "(want ")

	_, err = tokens.Calibrator{Prompt: f}.Calibrate(context.Background(), []string{"a", "xx", "yyyy"})
	assert.ErrorContains(t, err, "2 of 2 words counted (want at least 8), 0 of them one token")
}

func TestUsageReadsPromptTokens(t *testing.T) {
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "/v1/chat/completions", r.URL.Path)
		assert.Equal(t, "Bearer k", r.Header.Get("Authorization"))
		assert.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		if body["messages"].([]any)[0].(map[string]any)["content"] == "none" {
			_, _ = w.Write([]byte(`{"choices": []}`))
			return
		}
		_, _ = w.Write([]byte(`{"choices": [], "usage": {"prompt_tokens": 31, "completion_tokens": 1}}`))
	}))
	defer srv.Close()
	u := &tokens.Usage{Endpoint: tokens.Endpoint{BaseURL: srv.URL + "/", APIKey: "k", Model: "tiny", HTTP: srv.Client()}}
	n, err := u.PromptTokens(context.Background(), "and and")
	require.NoError(t, err)
	assert.Equal(t, 31, n)
	assert.Equal(t, map[string]any{"model": "tiny", "max_tokens": 1.0, "stream": false,
		"messages": []any{map[string]any{"role": "user", "content": "and and"}}}, body)
	_, err = u.PromptTokens(context.Background(), "none")
	assert.ErrorContains(t, err, "tokens: POST /v1/chat/completions: the answer has no usage.prompt_tokens")
	_, err = (&tokens.Usage{Endpoint: tokens.Endpoint{BaseURL: srv.URL}}).PromptTokens(context.Background(), "x")
	assert.ErrorContains(t, err, "no HTTP client")
}
