package datasets_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/datasets"
)

func TestSessionsYieldUserTurnsSessionMajor(t *testing.T) {
	o := datasets.Options{Name: datasets.SessionsName, NumPrompts: 2, Seed: 9, Params: map[string]any{
		datasets.ParamSessionsTurns: 3, datasets.ParamSessionsInputLen: 5, datasets.ParamSessionsThinkTime: 250}}
	g := mustNew(t, o)
	c, ok := g.(datasets.Conversations)
	require.True(t, ok, "a sessions generator says its turns and think time")
	assert.Equal(t, 3, c.Turns())
	assert.Equal(t, 250*time.Millisecond, c.ThinkTime())
	assert.Equal(t, map[string]any{datasets.ParamSessionsTurns: 3, datasets.ParamSessionsInputLen: 5,
		datasets.ParamSessionsOutputLen: 128, datasets.ParamSessionsThinkTime: 250}, g.Spec().Params, "defaults filled")
	reqs, err := datasets.Collect(g, 0)
	require.NoError(t, err)
	require.Len(t, reqs, 6, "2 sessions x 3 turns")
	for i, r := range reqs {
		assert.Equal(t, fmt.Sprintf("session-%d.%d", i/3, i%3), r.ID)
		assert.Equal(t, fmt.Sprintf("session-%d", i/3), r.Group)
		assert.Equal(t, i%3, r.Turn)
		require.Len(t, r.Messages, 1, "the user message only: the runner adds the history")
		assert.Equal(t, "user", r.Messages[0]["role"])
		assert.Len(t, strings.Fields(content(r)), 5, "%s: 5 single-token words", r.ID)
		assert.Equal(t, 5, r.InputTokens)
		assert.Equal(t, 128, r.OutputTokens)
	}
	assert.Equal(t, bodies(t, g), bodies(t, mustNew(t, o)), "same seed, same user turns")
	o.Seed = 10
	assert.NotEqual(t, bodies(t, g), bodies(t, mustNew(t, o)), "another seed, other turns")
}

func TestSessionsBadParamsNamed(t *testing.T) {
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{datasets.ParamSessionsTurns: 0}, "datasets: sessions: sessions_turns 0: want >= 1"},
		{map[string]any{datasets.ParamSessionsThinkTime: -5}, "datasets: sessions: sessions_think_time_ms -5: want >= 0"},
		{map[string]any{datasets.ParamSessionsOutputLen: 0}, "datasets: sessions: sessions_output_len 0: want >= 1"},
		{map[string]any{datasets.ParamSessionsTurns: 1.5}, "datasets: sessions: sessions_turns: want an integer, got 1.5"},
		{map[string]any{"sessions_turn": 2}, `datasets: sessions: unknown parameter "sessions_turn"`},
	} {
		_, err := datasets.New(datasets.Options{Name: datasets.SessionsName, Params: tc.params})
		assert.ErrorContains(t, err, tc.want, "%v", tc.params)
	}
}
