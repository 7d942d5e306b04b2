package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
)

func TestGeneratorWorkloadRecordsRequestedAndAchievedLengths(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	w := load(t, `{"generator": {"name": "random", "num_prompts": 20, "seed": 5,
		"random_input_len": 512, "random_output_len": 16, "random_range_ratio": 0}}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	require.Len(t, s.Jobs(), 20, "one job per generated request")
	_, err = s.RunLoad(context.Background(), runner.Load{MaxConcurrency: 4})
	require.NoError(t, err)
	p := s.Payload()
	require.Len(t, p.Results, 20)
	require.NotNil(t, p.Workload.Generator, "the payload records the generator")
	assert.Equal(t, "random", p.Workload.Generator.Name)
	assert.Equal(t, uint64(5), p.Workload.Generator.Seed)
	assert.Equal(t, 512, p.Workload.Generator.Params["random_input_len"])
	assert.Equal(t, "words", p.Workload.Generator.TokenCounting)
	for _, rec := range p.Results {
		require.NotNil(t, rec.Requested, "%s: requested lengths", rec.CaseID)
		assert.Equal(t, 512, rec.Requested.InputTokens, rec.CaseID)
		assert.Equal(t, 16, rec.Requested.OutputTokens, rec.CaseID)
		assert.Equal(t, 512, rec.Metrics.PromptTokens, "%s: the fixture counts the prompt's words", rec.CaseID)
		assert.Equal(t, 16, rec.Request.MaxTokens, rec.CaseID)
		assert.True(t, rec.OK, "%s: %v", rec.CaseID, rec.Quality.Issues)
		assert.Equal(t, []string{"random"}, rec.Tags, rec.CaseID)
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
