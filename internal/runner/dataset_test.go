package runner_test

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// TestGeneratorWorkloadRecordsRequestedAndAchievedLengths: the prompts
// are calibrated on the fixture before the run, by its POST /tokenize or,
// under the no-tokenize fault (as on Ollama), by usage.prompt_tokens
// alone; either way every request's prompt_tokens is the asked 512, and
// the payload says which way it was counted and what it cost.
func TestGeneratorWorkloadRecordsRequestedAndAchievedLengths(t *testing.T) {
	for _, tc := range []struct {
		faults   []fixtures.Fault
		counting string
	}{
		{nil, "server_tokenize"},
		{[]fixtures.Fault{"no-tokenize"}, "usage_calibration"},
	} {
		srv := fixtures.Start(t, fixtures.Options{Faults: tc.faults})
		var notes, warnings []string
		r, err := runner.New(context.Background(), runner.Config{URL: srv.URL, RequestTimeout: 30 * time.Second,
			Warn: func(msg string) { warnings = append(warnings, msg) }, Note: func(msg string) { notes = append(notes, msg) }})
		require.NoError(t, err)
		t.Cleanup(r.Close)
		w := load(t, `{"generator": {"name": "random", "num_prompts": 20, "seed": 5,
		"random_input_len": 512, "random_output_len": 16, "random_range_ratio": 0}}`)
		s, err := r.Start(context.Background(), w, runner.RunOptions{})
		require.NoError(t, err)
		require.Len(t, s.Jobs(), 20, "one job per generated request")
		chats := 0
		for _, rec := range srv.Requests() {
			if rec.Path == "/v1/chat/completions" {
				chats++
			}
		}
		_, err = s.RunLoad(context.Background(), runner.Load{MaxConcurrency: 4})
		require.NoError(t, err)
		p := s.Payload()
		require.Len(t, p.Results, 20)
		g := p.Workload.Generator
		require.NotNil(t, g, "the payload records the generator")
		assert.Equal(t, "random", g.Name)
		assert.Equal(t, uint64(5), g.Seed)
		assert.Equal(t, 512, g.Params["random_input_len"])
		assert.Equal(t, tc.counting, g.TokenCounting)
		require.NotNil(t, g.TemplateTokens, "calibrated")
		assert.Equal(t, 0, *g.TemplateTokens, "the fixture counts the messages' words only")
		assert.Positive(t, g.CalibrationRequests)
		if tc.counting == "usage_calibration" {
			assert.Equal(t, g.CalibrationRequests, chats, "every calibration request was a chat request")
		} else {
			assert.Equal(t, 3, chats, "the anchor and two additivity checks by usage, the words by /tokenize")
		}
		require.Len(t, notes, 1, "the calibration's numbers are a note")
		assert.Empty(t, warnings, "a calibration that worked is no warning")
		assert.Contains(t, notes[0], "generator random: prompts calibrated on the server ("+tc.counting+"): the chat template adds 0 tokens; 256 of ")
		for _, rec := range p.Results {
			require.NotNil(t, rec.Requested, "%s: requested lengths", rec.CaseID)
			assert.Equal(t, 512, rec.Requested.InputTokens, rec.CaseID)
			assert.Equal(t, 16, rec.Requested.OutputTokens, rec.CaseID)
			assert.Equal(t, 512, rec.Metrics.PromptTokens, "%s: the fixture counts the prompt's words", rec.CaseID)
			assert.Equal(t, 16, rec.Request.MaxTokens, rec.CaseID)
			assert.True(t, rec.OK, "%s: %v", rec.CaseID, rec.Quality.Issues)
			assert.Equal(t, []string{"random"}, rec.Tags, rec.CaseID)
		}
		require.NotNil(t, p.Summary.Lengths, "the summary compares asked and achieved lengths")
		assert.Equal(t, 20, p.Summary.Lengths.Requests)
		assert.Equal(t, 0, p.Summary.Lengths.InputOffBy1Pct, "the fixture counts what was built")
		assert.Equal(t, 512.0, p.Summary.Lengths.InputTokens.Min)
		assert.Equal(t, 0, p.Summary.Lengths.EndedShort, "the fixture's 40-120 word answers reach the asked 16 tokens")
	}
}

func TestNoCalibrationCountsByWords(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r, err := runner.New(context.Background(), runner.Config{URL: srv.URL, RequestTimeout: 30 * time.Second, NoCalibration: true})
	require.NoError(t, err)
	t.Cleanup(r.Close)
	s, err := r.Start(context.Background(), load(t, `{"generator": {"name": "random", "num_prompts": 2, "random_input_len": 16}}`), runner.RunOptions{})
	require.NoError(t, err)
	p := s.Payload()
	assert.Equal(t, "words", p.Workload.Generator.TokenCounting)
	assert.Nil(t, p.Workload.Generator.TemplateTokens)
	for _, rec := range srv.Requests() {
		assert.NotEqual(t, "/tokenize", rec.Path, "no calibration request")
		assert.NotEqual(t, "/v1/chat/completions", rec.Path, "no calibration request")
	}
}

func TestGeneratorBadParameterNamesFileAndField(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	w := load(t, `{"generator": {"name": "random", "random_input_lenn": 5}}`)
	_, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), w.Path)
	assert.Contains(t, err.Error(), `unknown parameter "random_input_lenn"`)
}

// TestPrefixWorkloadCachedTokensMatchConstruction: on the fixture, each
// request after its group's first reuses the group's prefix: the cached
// tokens the server reports are the prefix's whole 16-token blocks.
func TestPrefixWorkloadCachedTokensMatchConstruction(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	// 63 prefix words + the fixture's role marker = 64 tokens = 4 blocks.
	w := load(t, `{"generator": {"name": "prefix_repetition", "num_prompts": 6, "seed": 2,
		"prefix_repetition_prefix_len": 63, "prefix_repetition_suffix_len": 8,
		"prefix_repetition_num_prefixes": 2, "prefix_repetition_output_len": 4}}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	require.NoError(t, s.RunAll(context.Background(), nil), "sequential: each request scraped around")
	p := s.Payload()
	require.Len(t, p.Results, 6)
	for i, rec := range p.Results {
		require.NotNil(t, rec.Requested, rec.CaseID)
		require.NotNil(t, rec.Metrics.TokensSaved, "%s: the fixture's tokens_saved delta", rec.CaseID)
		if i < 2 {
			assert.Equal(t, 0, rec.Requested.PrefixTokens, "%s: a group's first request shares nothing", rec.CaseID)
			assert.Equal(t, int64(0), *rec.Metrics.TokensSaved, rec.CaseID)
			continue
		}
		assert.Equal(t, 63, rec.Requested.PrefixTokens, rec.CaseID)
		assert.Equal(t, int64(64), *rec.Metrics.TokensSaved, "%s: the prefix and its role marker, 4 whole blocks", rec.CaseID)
	}
}

func TestGeneratedInputBeyondTheContextIsRefusedBeforeTheLoad(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	w := load(t, `{"generator": {"name": "random", "num_prompts": 2, "random_input_len": 32760, "random_output_len": 64}}`)
	_, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `case "random-0" asks for 32824 tokens (input + output) but`)
	assert.Contains(t, err.Error(), "serves at most 32768 (max_model_len in /v1/models)")
	for _, rec := range srv.Requests() {
		assert.NotEqual(t, "/v1/chat/completions", rec.Path, "no chat request was sent")
	}
}

func TestCheckTokenizerWarnsWhenTheEndpointDisagreesWithUsage(t *testing.T) {
	for _, tc := range []struct {
		faults []fixtures.Fault
		want   string
	}{
		{nil, ""},
		{[]fixtures.Fault{"wrong-token-count"}, `the server's POST /tokenize counts 37 tokens for case "random-0", its usage.prompt_tokens says 32`},
	} {
		srv := fixtures.Start(t, fixtures.Options{Faults: tc.faults})
		r := newRunner(t, srv)
		w := load(t, `{"generator": {"name": "random", "num_prompts": 1, "random_input_len": 32, "random_output_len": 4}}`)
		s, err := r.Start(context.Background(), w, runner.RunOptions{})
		require.NoError(t, err)
		require.NoError(t, s.RunAll(context.Background(), nil))
		warning, skipped := s.CheckTokenizer(context.Background())
		assert.Empty(t, skipped, "the fixture has the endpoint")
		if tc.want == "" {
			assert.Empty(t, warning, "agreeing counts: no warning")
		} else {
			assert.Contains(t, warning, tc.want, "both numbers, usage wins")
		}
	}
}

// timedGen is a one-request trace, for ExpandGenerator's rule on timed
// generators.
type timedGen struct{}

func (timedGen) Spec() datasets.Spec { return datasets.Spec{Name: "test_timed"} }
func (timedGen) Requests() iter.Seq2[datasets.Request, error] {
	return func(yield func(datasets.Request, error) bool) {
		yield(datasets.Request{ID: "t-0", Messages: []results.Message{{"role": "user", "content": "x"}}, Timed: true}, nil)
	}
}

func init() {
	datasets.Register("test_timed", func(datasets.Options) (datasets.Generator, error) { return timedGen{}, nil })
}

func TestExpandGeneratorLeavesATraceToTheLoad(t *testing.T) {
	w := load(t, `{"generator": {"name": "test_timed"}}`)
	got, err := runner.ExpandGenerator(w)
	require.NoError(t, err)
	assert.Empty(t, got.Cases, "a timed generator's requests are never held as cases")
	assert.Same(t, w, got)
}

// TestCalibrationIsMeasuredOnce: a Runner calibrates once; a second Start
// (a capacity search's next probe) reuses it, sending no more chat
// requests, and its jobs are the calibrated cases.
func TestCalibrationIsMeasuredOnce(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Faults: []fixtures.Fault{"no-tokenize"}})
	r := newRunner(t, srv)
	chats := func() int {
		n := 0
		for _, rec := range srv.Requests() {
			if rec.Path == "/v1/chat/completions" {
				n++
			}
		}
		return n
	}
	w := load(t, `{"generator": {"name": "prefix_repetition", "num_prompts": 4, "prefix_repetition_prefix_len": 20, "prefix_repetition_suffix_len": 10}}`)
	calibrated, err := r.Calibrate(context.Background(), w)
	require.NoError(t, err)
	require.NotNil(t, calibrated.Generator.TemplateTokens)
	assert.Equal(t, "usage_calibration", calibrated.Generator.TokenCounting)
	sent := chats()
	assert.Equal(t, calibrated.Generator.CalibrationRequests, sent)
	for range 2 {
		s, err := r.Start(context.Background(), w, runner.RunOptions{})
		require.NoError(t, err)
		assert.Equal(t, sent, s.Payload().Workload.Generator.CalibrationRequests)
		require.Len(t, s.Jobs(), 4)
		for i, j := range s.Jobs() {
			assert.Equal(t, calibrated.Cases[i].Messages, j.Case.Messages, j.Case.ID)
		}
	}
	assert.Equal(t, sent, chats(), "no chat request after the first calibration")
}
