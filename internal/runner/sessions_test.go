package runner_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// sessionAnswer is the scripted fixture's answer to a request of n
// messages whose last one starts with word: unique per turn, so a turn's
// history shows which answer it carries.
func sessionAnswer(word string, n int) string { return fmt.Sprintf("answer %s %d", word, n) }

func sessionFixture(t *testing.T) *fixtures.Server {
	return fixtures.Start(t, fixtures.Options{Responder: func(req fixtures.Request) fixtures.Script {
		last, _ := req.Messages[len(req.Messages)-1]["content"].(string)
		word, _, _ := strings.Cut(last, " ")
		toks := strings.SplitAfter(sessionAnswer(word, len(req.Messages)), " ")
		return fixtures.Script{Content: toks}
	}})
}

func sessionsLoad(t *testing.T, seed uint64, think int) runner.Load {
	t.Helper()
	g, err := datasets.New(datasets.Options{Name: datasets.SessionsName, NumPrompts: 3, Seed: seed, Params: map[string]any{
		datasets.ParamSessionsTurns: 3, datasets.ParamSessionsInputLen: 8, datasets.ParamSessionsOutputLen: 16,
		datasets.ParamSessionsThinkTime: think}})
	require.NoError(t, err)
	return runner.Load{Trace: &runner.Trace{Generator: g}, MaxConcurrency: 3}
}

func runSessions(t *testing.T, srv *fixtures.Server, seed uint64, think int) *results.Payload {
	t.Helper()
	s, err := newRunner(t, srv).Start(context.Background(), load(t, `{"cases": [{"id": "unused", "messages": [{"role": "user", "content": "hi"}]}]}`), runner.RunOptions{})
	require.NoError(t, err)
	run, err := s.RunLoad(context.Background(), sessionsLoad(t, seed, think))
	require.NoError(t, err, "sessions run")
	require.Len(t, run.Samples, 9, "3 sessions x 3 turns")
	return s.Payload()
}

// TestSessionsCarryRealAnswers runs 3 sessions of 3 turns: 9 requests,
// each turn's history holding the fixture's real answers to the earlier
// turns, sent after that answer and the think time.
func TestSessionsCarryRealAnswers(t *testing.T) {
	const think = 40
	srv := sessionFixture(t)
	p := runSessions(t, srv, 7, think)
	got := srv.ChatRequests()
	require.Len(t, got, 9, "the fixture received every turn")
	// Group the received requests by session: a session's first user
	// message opens every one of its turns.
	bySession := map[string][]fixtures.Recorded{}
	for _, rec := range got {
		msgs, _ := rec.Body["messages"].([]any)
		require.NotEmpty(t, msgs)
		first := msgs[0].(map[string]any)["content"].(string)
		bySession[first] = append(bySession[first], rec)
	}
	require.Len(t, bySession, 3, "3 sessions")
	for _, turns := range bySession {
		require.Len(t, turns, 3, "3 turns per session")
		for k, rec := range turns {
			msgs := rec.Body["messages"].([]any)
			require.Len(t, msgs, 2*k+1, "turn %d: the history then the new user message", k)
			for j := 1; j < len(msgs); j += 2 {
				m := msgs[j].(map[string]any)
				user := msgs[j-1].(map[string]any)["content"].(string)
				word, _, _ := strings.Cut(user, " ")
				assert.Equal(t, "assistant", m["role"], "turn %d message %d", k, j)
				assert.Equal(t, sessionAnswer(word, j), m["content"], "turn %d carries the real answer to turn %d", k, j/2)
			}
			if k > 0 {
				assert.GreaterOrEqual(t, rec.Time.Sub(turns[k-1].Time), think*time.Millisecond,
					"turn %d sent at least the think time after turn %d", k, k-1)
				prev := turns[k-1].Body["messages"].([]any)
				assert.Equal(t, prev, msgs[:len(prev)], "turn %d's history opens with turn %d's messages", k, k-1)
			}
		}
	}
	require.Len(t, p.Results, 9, "one record per turn")
	for _, rec := range p.Results {
		require.NotNil(t, rec.Requested, rec.CaseID)
		q := rec.Requested
		require.NotNil(t, q.Turn, "%s keeps its turn", rec.CaseID)
		assert.Equal(t, fmt.Sprintf("%s.%d", q.Group, *q.Turn), rec.CaseID, "case id is session.turn")
		assert.True(t, rec.OK, "%s ok: %s", rec.CaseID, rec.Error)
		if *q.Turn == 0 {
			assert.Zero(t, q.PrefixTokens, "%s: a first turn shares nothing", rec.CaseID)
			assert.Equal(t, 8, q.InputTokens, rec.CaseID)
		} else {
			// history: k user turns of 8 tokens and k answers of 3
			assert.Equal(t, *q.Turn*(8+3), q.PrefixTokens, "%s: the history's tokens", rec.CaseID)
			assert.Equal(t, q.PrefixTokens+8, q.InputTokens, rec.CaseID)
		}
	}
	require.NotNil(t, p.Workload.Generator, "generator recorded")
	assert.Equal(t, datasets.SessionsName, p.Workload.Generator.Name)
	assert.EqualValues(t, 7, p.Workload.Generator.Seed)
	assert.Equal(t, 3, p.Workload.Generator.Params[datasets.ParamSessionsTurns])
	assert.Equal(t, think, p.Workload.Generator.Params[datasets.ParamSessionsThinkTime])
	require.NotNil(t, p.Summary.PromptCache, "the summary verifies the built reuse")
	assert.Equal(t, 3*(11+22), p.Summary.PromptCache.ExpectedTokens, "turns 1 and 2 of 3 sessions")
	// The fixture caches prompts (not answers) in blocks of 16 tokens:
	// turn 2's 30-token prompt opens with turn 1's 19, one whole block.
	assert.Equal(t, 9, p.Summary.PromptCache.Reported, "the fixture reports cached tokens")
	assert.Equal(t, 3*16, p.Summary.PromptCache.CachedTokens, "the hit the server showed, beside the built reuse")
}

// TestSessionsSameSeedSameBodies: two runs with one seed send
// byte-identical bodies (the fixture answers deterministically); another
// seed sends other first turns.
func TestSessionsSameSeedSameBodies(t *testing.T) {
	bodies := func(seed uint64) []string {
		srv := sessionFixture(t)
		runSessions(t, srv, seed, 0)
		var out []string
		for _, rec := range srv.ChatRequests() {
			out = append(out, string(rec.RawBody))
		}
		slices.Sort(out)
		return out
	}
	a, b := bodies(3), bodies(3)
	assert.Equal(t, a, b, "same seed, same bodies")
	assert.NotEqual(t, a, bodies(4), "another seed, other bodies")
}

func TestSessionsRefuseRateAndBadParams(t *testing.T) {
	srv := sessionFixture(t)
	s, err := newRunner(t, srv).Start(context.Background(), load(t, `{"cases": [{"id": "unused", "messages": [{"role": "user", "content": "hi"}]}]}`), runner.RunOptions{})
	require.NoError(t, err)
	l := sessionsLoad(t, 1, 0)
	l.Rate = 5
	_, err = s.RunLoad(context.Background(), l)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "closed loop of concurrent sessions")
	assert.Empty(t, srv.ChatRequests(), "nothing sent")

	for key, v := range map[string]int{datasets.ParamSessionsTurns: 0, datasets.ParamSessionsThinkTime: -1, datasets.ParamSessionsInputLen: 0} {
		_, err := datasets.New(datasets.Options{Name: datasets.SessionsName, Params: map[string]any{key: v}})
		require.Error(t, err, key)
		assert.Contains(t, err.Error(), "sessions: "+key+" ", "the error names the field")
	}
}

// TestSessionsFromTheWorkloadFile: a workload file's "sessions"
// generator is streamed as load (never expanded into cases), with fewer
// streams than sessions: every turn of every session is sent.
func TestSessionsFromTheWorkloadFile(t *testing.T) {
	srv := sessionFixture(t)
	w := load(t, `{"generator": {"name": "sessions", "num_prompts": 3, "seed": 2, "sessions_turns": 2, "sessions_input_len": 4, "sessions_output_len": 8}}`)
	assert.True(t, runner.IsTrace(w), "streamed, not expanded")
	s, err := newRunner(t, srv).Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	assert.ErrorContains(t, s.RunAll(context.Background(), nil), "a sessions generator is streamed as load", "not case by case")
	run, err := s.RunLoad(context.Background(), runner.Load{MaxConcurrency: 2})
	require.NoError(t, err)
	require.Len(t, run.Samples, 6, "3 sessions x 2 turns over 2 streams")
	ids := map[string]bool{}
	for _, rec := range s.Payload().Results {
		ids[rec.CaseID] = true
		assert.True(t, rec.OK, "%s: %s", rec.CaseID, rec.Error)
	}
	assert.Len(t, ids, 6, "every turn once")
	assert.True(t, ids["session-2.1"], "the last session's last turn")
	assert.Len(t, srv.ChatRequests(), 6)
}

// TestSessionsRefusedBeyondTheContext: sessions whose last turn may
// exceed the fixture's max_model_len (32768) are refused before sending.
func TestSessionsRefusedBeyondTheContext(t *testing.T) {
	srv := sessionFixture(t)
	s, err := newRunner(t, srv).Start(context.Background(), load(t, `{"cases": [{"id": "unused", "messages": [{"role": "user", "content": "hi"}]}]}`), runner.RunOptions{})
	require.NoError(t, err)
	g, err := datasets.New(datasets.Options{Name: datasets.SessionsName, NumPrompts: 1, Params: map[string]any{
		datasets.ParamSessionsTurns: 10, datasets.ParamSessionsInputLen: 4000}})
	require.NoError(t, err)
	_, err = s.RunLoad(context.Background(), runner.Load{Trace: &runner.Trace{Generator: g}})
	assert.ErrorContains(t, err, "the last of 10 turns may ask for 41280 tokens")
	assert.ErrorContains(t, err, "serves at most 32768")
	assert.Empty(t, srv.ChatRequests(), "nothing sent")
}
