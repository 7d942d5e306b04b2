package stream_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// fixtureChat runs one ChatStream against a fixture server answering sc.
func fixtureChat(t *testing.T, sc fixtures.Script, req stream.Request) (*fixtures.Server, *stream.Result, error) {
	t.Helper()
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script { return sc }})
	c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	if req.Model == "" {
		req.Model = "benchserve-fixture"
	}
	if req.Messages == nil {
		req.Messages = []results.Message{{"role": "user", "content": "hello there"}}
	}
	res, err := c.ChatStream(context.Background(), req)
	require.NotNil(t, res, "ChatStream always returns a Result")
	return srv, res, err
}

func sumF(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func TestFixtureScriptedTimings(t *testing.T) {
	_, res, err := fixtureChat(t, fixtures.Script{
		RoleChunk: true, Content: []string{"a", " b", " c", " d", " e"},
		TTFT: 214 * time.Millisecond, TokenDelay: 20 * time.Millisecond,
	}, stream.Request{})
	require.NoError(t, err, "fixture stream must succeed")
	assert.Equal(t, "a b c d e", res.Content, "content")
	assert.Equal(t, 5, res.TokenChunks, "the role chunk is not a token")
	assert.GreaterOrEqual(t, res.TTFTms, 214.0, "TTFT at the scripted 214 ms")
	assert.LessOrEqual(t, res.TTFTms, 214.0+slackMS, "TTFT within tolerance")
	assert.Len(t, res.ITLms, 4, "4 gaps")
	assert.GreaterOrEqual(t, sumF(res.ITLms), 4*20.0/2, "gaps reflect the scripted 20 ms token delay (a stalled reader can only compress them)")
	assert.LessOrEqual(t, sumF(res.ITLms), 4*20.0+slackMS, "gaps within tolerance")
	require.NotNil(t, res.Usage, "the fixture sends usage when asked")
	assert.Equal(t, 5, res.CompletionTokens, "completion tokens from usage")
	assert.InDelta(t, sumF(res.ITLms)/4, res.TPOTms, 1e-9, "TPOT = span/(N-1)")
	assert.True(t, strings.HasPrefix(res.RequestID, "chatcmpl-"), "fixture request id recorded: %q", res.RequestID)
	assert.True(t, res.Done, "done")
}

func TestFixtureReasoningTTFO(t *testing.T) {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		t.Run(key, func(t *testing.T) {
			_, res, err := fixtureChat(t, fixtures.Script{
				Reasoning: []string{"hmm", " ok", " so"}, ReasoningKey: key, Content: []string{"42"},
				TTFT: 100 * time.Millisecond, TokenDelay: 60 * time.Millisecond,
			}, stream.Request{})
			require.NoError(t, err, "fixture stream must succeed")
			assert.Equal(t, "hmm ok so", res.Reasoning, "reasoning")
			assert.Equal(t, "42", res.Content, "content")
			assert.GreaterOrEqual(t, res.TTFTms, 100.0, "TTFT at the first reasoning token")
			assert.LessOrEqual(t, res.TTFTms, 100.0+slackMS, "TTFT within tolerance")
			assert.GreaterOrEqual(t, res.TTFOms-res.TTFTms, 3*60.0/2, "TTFO comes three token delays after TTFT (a stalled reader can only compress the gap)")
		})
	}
}

func TestFixtureChunkedWritesUTF8(t *testing.T) {
	for _, n := range []int{1, 7} {
		_, res, err := fixtureChat(t, fixtures.Script{Content: []string{"Zürich", " 修复", " 😀"}, ChunkedWrites: n}, stream.Request{})
		require.NoError(t, err, "fixture stream must succeed with %d-byte writes", n)
		assert.Equal(t, "Zürich 修复 😀", res.Content, "UTF-8 intact with %d-byte writes", n)
	}
}

func TestFixtureHangPolicyTimeout(t *testing.T) {
	srv, res, err := fixtureChat(t, fixtures.Script{Hang: true}, stream.Request{Timeout: 250 * time.Millisecond})
	assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "a hanging server hits the policy timeout")
	assert.GreaterOrEqual(t, res.E2ELms, 250.0, "E2E covers the timeout")
	// A hanging server sent no chunk, so no id is known and no cancel is
	// sent (the slow-drip test below covers the cancel with a known id).
	assert.Empty(t, res.RequestID, "no chunk, no id")
	assert.Empty(t, srv.Cancelled(), "nothing to cancel by id")
}

func TestFixtureSlowDripPolicyTimeout(t *testing.T) {
	words := make([]string, 100)
	for i := range words {
		words[i] = "w"
	}
	srv, res, err := fixtureChat(t, fixtures.Script{Content: words, TokenDelay: 50 * time.Millisecond}, stream.Request{Timeout: 300 * time.Millisecond})
	assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "a slow drip hits the policy timeout")
	assert.Greater(t, res.TokenChunks, 0, "some tokens arrived")
	assert.Less(t, res.TokenChunks, 100, "not all tokens arrived")
	require.NotEmpty(t, res.RequestID, "the request id was seen")
	assert.Eventually(t, func() bool {
		for _, id := range srv.Cancelled() {
			if id == res.RequestID {
				return true
			}
		}
		return false
	}, 2*time.Second, 10*time.Millisecond, "the server recorded the cancel for %s", res.RequestID)
}

func TestFixtureErrorAfterAndStatus(t *testing.T) {
	_, res, err := fixtureChat(t, fixtures.Script{Content: []string{"a", "b", "c"}, ErrorAfter: 2, ErrorMessage: "boom"}, stream.Request{})
	var se *stream.ServerError
	require.ErrorAs(t, err, &se, "an in-stream error is a ServerError")
	assert.Equal(t, "boom", se.Message, "server message")
	assert.Equal(t, "ab", res.Content, "content before the error kept")

	_, res, err = fixtureChat(t, fixtures.Script{Status: 503}, stream.Request{})
	var he *stream.HTTPError
	require.ErrorAs(t, err, &he, "a status script is an HTTPError")
	assert.Equal(t, 503, he.StatusCode, "status")
	assert.NotEmpty(t, he.Message, "message extracted")
	assert.Equal(t, 503, res.StatusCode, "status in result")
}

func TestFixtureToolCalls(t *testing.T) {
	calls := []results.ToolCall{
		{ID: "call_1", Type: "function", Function: results.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris","unit":"c"}`}},
		{ID: "call_2", Type: "function", Function: results.FunctionCall{Name: "get_time", Arguments: `{"tz":"UTC"}`}},
	}
	_, res, err := fixtureChat(t, fixtures.Script{ToolCalls: calls}, stream.Request{})
	require.NoError(t, err, "fixture stream must succeed")
	assert.Equal(t, calls, res.ToolCalls, "tool calls reassembled")
	assert.Equal(t, "tool_calls", res.FinishReason, "finish reason")
	assert.True(t, res.HasOutput, "tool calls are output")
}

// slackMS is the scheduling tolerance of the upper bounds here; it mirrors
// the in-package constant of the same name (main_test.go).
const slackMS = 400.0

// TestTransportTimeoutMidStreamSaysSo: when the client's own request
// timeout passes while the answer is still streaming, the error says a
// deadline passed, not that the connection was lost.
func TestTransportTimeoutMidStreamSaysSo(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: strings.Split(strings.Repeat("word ", 200), " "), TokenDelay: 20 * time.Millisecond}
	}})
	hc := srv.Client()
	hc.Timeout = 300 * time.Millisecond
	c := &stream.Client{BaseURL: srv.URL, HTTP: hc}
	_, err := c.ChatStream(context.Background(), stream.Request{Model: "benchserve-fixture",
		Messages: []results.Message{{"role": "user", "content": "hello there"}}})
	require.Error(t, err, "the 300 ms timeout passes mid-stream")
	assert.Contains(t, err.Error(), "deadline passed mid-stream", "the message names a deadline")
	assert.NotErrorIs(t, err, stream.ErrConnectionLost, "not a lost connection")
}
