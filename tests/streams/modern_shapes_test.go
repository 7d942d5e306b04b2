package streams_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// Cases 11–15 are the shapes of modern servers: thinking
// models, answers delivered in one read, n > 1, refusals, and a failed
// request's root cause. Each runs against a named fixture scenario
// ([fixture:NAME]) and, where the OpenAI API's own wording matters, a
// transcript in the shape the official SDKs' tests record.

// scenarioCase is a case whose prompt selects the fixture scenario name,
// with optional extra keys.
func scenarioCase(id, name, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Sprintf(`{"id":%q,"messages":[{"role":"user","content":"Tell me about rivers %s"}]%s}`, id, fixtures.ScenarioTag(name), extra)
}

// scenarioScript is what the fixture's default responder scripts for a
// scenarioCase prompt of the named scenario at the default max_tokens:
// the scenario's own values (its tokens, its refusal text).
func scenarioScript(name string) fixtures.Script {
	return fixtures.DefaultResponder(fixtures.Request{MaxTokens: results.DefaultMaxTokens,
		Messages: []results.Message{{"role": "user", "content": "Tell me about rivers " + fixtures.ScenarioTag(name)}}})
}

// recordJSON renders one record as the JSON results file writes it and
// decodes it back into a map, for assertions on nulls.
func recordJSON(t *testing.T, rec results.Record) map[string]any {
	t.Helper()
	p := &results.Payload{Results: []results.Record{rec}}
	p.Summary = results.Summarize(p.Results)
	b, err := resultio.FormatJSON(p)
	require.NoError(t, err, "a record with unmeasured rates must still format")
	var m struct {
		Summary map[string]any   `json:"summary"`
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal(b, &m), "the JSON results parse")
	m.Results[0]["summary"] = m.Summary
	return m.Results[0]
}

// TestCase11ReasoningOnly: a thinking model that ignores
// enable_thinking=false and spends max_tokens thinking. The record shows
// the reasoning (chars, chunks, text with include_content), the issue says
// the answer was reasoning only and what the server takes instead.
func TestCase11ReasoningOnly(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	out := record(t, srv, scenarioCase("think", "reasoning-only", `"enable_thinking":false`),
		func(c *runner.Config) { c.IncludeContent = true })
	require.NoError(t, out.Err, "the stream itself succeeds")
	q := out.Record.Quality
	require.NotNil(t, q.Reasoning, "reasoning text kept with include_content")
	chars := utf8.RuneCountInString(*q.Reasoning)
	assert.Equal(t, chars, q.ReasoningChars, "reasoning_chars in code points")
	assert.Greater(t, chars, 100, "a long reasoning")
	assert.Equal(t, len(scenarioScript("reasoning-only").Reasoning), q.ReasoningChunks, "one chunk per reasoning token")
	assert.Equal(t, 0, q.ContentChars, "no content")
	require.NotEmpty(t, q.Issues, "the case fails")
	wantNote := fmt.Sprintf("enable_thinking=false was sent but %d chars of reasoning arrived: the server ignored it", chars)
	assert.Equal(t, fmt.Sprintf("Truncated (finish_reason=length): the answer was reasoning only: %d chars of reasoning, no content; %s", chars, wantNote)+
		`; Ollama turns thinking off with extra_body {"reasoning_effort": "none"}, vLLM and SGLang with {"chat_template_kwargs": {"enable_thinking": false}}`,
		q.Issues[0], "the issue says what the answer was and how to turn thinking off")
	require.Len(t, q.Notes, 1, "the ignored flag is noted")
	assert.True(t, strings.HasPrefix(q.Notes[0], wantNote), "note: %s", q.Notes[0])
	assert.Nil(t, q.ReasoningTokens, "the fixture reports no reasoning_tokens")

	t.Run("stop, OpenAI usage with reasoning_tokens", func(t *testing.T) {
		const id = "chatcmpl-o3"
		parts := []fixtures.RawPart{at(0, sse(delta(id, `{"role":"assistant","content":""}`, "null")))}
		for range 4 {
			parts = append(parts, at(2*time.Millisecond, sse(delta(id, `{"reasoning_content":"Hmm, "}`, "null"))))
		}
		parts = append(parts, at(0, sse(delta(id, `{}`, `"stop"`))+
			sse(`{"id":"chatcmpl-o3","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21,"completion_tokens_details":{"reasoning_tokens":12}}}`)+done))
		out := record(t, raw(t, parts...), simpleCase("o3", ""))
		q := out.Record.Quality
		assert.Equal(t, []string{"the answer was reasoning only: 20 chars of reasoning, no content"}, q.Issues, "not \"Empty response content\"")
		require.NotNil(t, q.ReasoningTokens, "usage's reasoning_tokens kept")
		assert.Equal(t, 12, *q.ReasoningTokens, "reasoning tokens")
		assert.Equal(t, 4, q.ReasoningChunks, "reasoning chunks")
		assert.Nil(t, q.Notes, "enable_thinking was not sent: no note")
	})
}

// TestCase12Bursts: rates only where the timing supports them. A whole
// answer in one write, or a tool call in one chunk, has no observable
// decode span: tpot_ms, gen_tps and itl_ms are null with the reason;
// TTFT and E2EL stay; summaries skip and count them. A steady stream
// keeps its numbers.
func TestCase12Bursts(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	t.Run("burst", func(t *testing.T) {
		// 12 tokens (about 3 KB) come in one read. A larger burst takes
		// several reads, and a client descheduled between them (a loaded
		// machine under -race) sees them more than 1 ms apart: the rule
		// then reports a rate, as it must for arrival times that far apart.
		out := record(t, srv, scenarioCase("burst", "burst", `"max_tokens":12,"checks":{"finish_reason":["stop","length"]}`))
		require.NoError(t, out.Err, "a burst is a successful stream")
		m := out.Record.Metrics
		assert.Equal(t, stream.DecodeBurst, m.DecodeTiming, "decode timing reason")
		assert.Contains(t, m.DecodeTimingNote, fmt.Sprintf("all %d tokens arrived in %d chunks within", m.CompletionTokens, m.TokenChunks), "note")
		assert.Equal(t, 12, m.TokenChunks, "12 chunks, one write")
		assert.True(t, math.IsNaN(m.TPOTms) && math.IsNaN(m.GenTPS), "no rate from a burst: tpot %v gen_tps %v", m.TPOTms, m.GenTPS)
		assert.Nil(t, m.ITLms, "no chunk gaps from a burst")
		assert.Greater(t, m.TTFTms, 0.0, "TTFT stays")
		assert.GreaterOrEqual(t, m.E2ELms, m.TTFTms, "E2EL stays")
		assert.True(t, out.Record.OK, "the answer itself passes")
		j := recordJSON(t, out.Record)
		jm := j["metrics"].(map[string]any)
		for _, k := range []string{"tpot_ms", "gen_tps", "itl_ms"} {
			assert.Contains(t, jm, k, "key %s present", k)
			assert.Nil(t, jm[k], "%s is null in the JSON", k)
		}
		assert.Equal(t, "burst", jm["decode_timing"], "reason in the JSON")
		sum := j["summary"].(map[string]any)
		assert.Equal(t, map[string]any{}, sum["gen_tps"], "no gen_tps sample: {}")
		assert.Equal(t, 1.0, sum["gen_tps_skipped"], "the summary says one was skipped")
	})
	t.Run("tool call in one chunk", func(t *testing.T) {
		out := record(t, srv, scenarioCase("tool", "tool-one-chunk", ""))
		require.NoError(t, out.Err, "stream succeeds")
		m := out.Record.Metrics
		assert.Equal(t, 1, m.TokenChunks, "one token-bearing chunk")
		assert.Equal(t, stream.DecodeSingleChunk, m.DecodeTiming, "single chunk")
		assert.Equal(t, fmt.Sprintf("all %d tokens arrived in one chunk", m.CompletionTokens), m.DecodeTimingNote, "note")
		assert.True(t, math.IsNaN(m.TPOTms) && math.IsNaN(m.GenTPS), "neither 0.0 nor a rate: tpot %v gen_tps %v", m.TPOTms, m.GenTPS)
		require.NotNil(t, out.Record.ToolCalls, "the tool call is recorded")
		assert.Equal(t, []string{"get_weather"}, out.Record.ToolCalls.Names, "tool name")
	})
	t.Run("steady stream keeps its numbers", func(t *testing.T) {
		res, err := chat(t, serve(t, fixtures.Script{Content: strings.Fields("a b c d e f"), TokenDelay: 5 * time.Millisecond}))
		require.NoError(t, err, "stream succeeds")
		assert.Empty(t, res.DecodeTiming, "observable")
		require.Len(t, res.ITLms, 5, "5 gaps")
		span := 0.0
		for _, g := range res.ITLms {
			span += g
		}
		assert.GreaterOrEqual(t, span, 25.0, "the scripted 5 gaps of 5 ms")
		assert.InDelta(t, span/5, res.TPOTms, 1e-9, "TPOT = span/(N-1), the mean chunk gap, as before")
		assert.InDelta(t, res.RefTPOTms, res.TPOTms, 1e-9, "and the reference's tpot")
		assert.InDelta(t, 5/(span/1000), res.GenTPS, 1e-6, "gen_tps = (N-1)/span: the tokens decoded over the span")
		assert.InDelta(t, 6/(span/1000), res.RefGenTPS, 1e-6, "the reference's N/span kept as ref_gen_tps")
	})
}

// TestCase13SeveralChoices: an n = 3 stream is three answers. Choice 0
// fills the record's answer, the others are kept by index, and the checks
// run on every choice, naming it.
func TestCase13SeveralChoices(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	out := record(t, srv, scenarioCase("n3", "choices", `"checks":{"min_chars":100000}`),
		func(c *runner.Config) { c.IncludeContent = true })
	require.NoError(t, out.Err, "stream succeeds")
	q := out.Record.Quality
	require.Len(t, q.Choices, 3, "three choices kept")
	require.NotNil(t, q.Content, "content kept")
	assert.Equal(t, utf8.RuneCountInString(*q.Content), q.ContentChars, "content_chars is choice 0's")
	assert.Equal(t, q.ContentChars, q.Choices[0].ContentChars, "choice 0 is the record's answer")
	for i, ch := range q.Choices {
		assert.Equal(t, i, ch.Index, "choice index")
		require.NotNil(t, ch.Content, "choice %d content kept", i)
		assert.Equal(t, utf8.RuneCountInString(*ch.Content), ch.ContentChars, "choice %d content_chars", i)
		require.NotNil(t, ch.FinishReason, "choice %d finish reason", i)
		assert.Equal(t, "stop", *ch.FinishReason, "choice %d finish reason", i)
	}
	assert.NotEqual(t, *q.Choices[0].Content, *q.Choices[1].Content, "not one glued string")
	assert.NotContains(t, *q.Content, *q.Choices[1].Content, "choice 1 is not in choice 0's content")
	assert.Equal(t, []string{
		"choice 0: content shorter than min_chars=100000",
		"choice 1: content shorter than min_chars=100000",
		"choice 2: content shorter than min_chars=100000",
	}, q.Issues, "every choice checked, each issue naming its choice")

	t.Run("one choice empty", func(t *testing.T) {
		// OpenAI's shape: one choice per chunk, interleaved; choice 1
		// ends without content.
		const id = "chatcmpl-n"
		ch := func(i int, d, fr string) string {
			return sse(fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","choices":[{"index":%d,"delta":%s,"finish_reason":%s}]}`, id, i, d, fr))
		}
		body := ch(0, `{"role":"assistant","content":""}`, "null") + ch(1, `{"role":"assistant","content":""}`, "null") +
			ch(0, `{"content":"Paris."}`, "null") + ch(0, `{}`, `"stop"`) + ch(1, `{}`, `"stop"`) + done
		out := record(t, raw(t, at(0, body)), simpleCase("n2", `"checks":{"finish_reason":["stop"]}`))
		assert.Equal(t, []string{"choice 1: Empty response content"}, out.Record.Quality.Issues, "a finish_reason-only check no longer hides an empty choice")
		assert.Equal(t, 6, out.Record.Quality.ContentChars, "choice 0's content")
	})
}

// TestCase14Refusal: delta.refusal is the answer when the model declines:
// assembled, timed like content, and said in the issue.
func TestCase14Refusal(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	out := record(t, srv, scenarioCase("refuse", "refusal", ""))
	require.NoError(t, out.Err, "a refusal is a successful stream")
	rec := out.Record
	refusal := scenarioScript("refusal").Refusal
	refusalText := strings.Join(refusal, "")
	assert.Equal(t, refusalText, rec.Quality.Refusal, "refusal kept")
	assert.Equal(t, []string{"refused: " + refusalText}, rec.Quality.Issues, "not \"Empty response content\"")
	require.NotNil(t, rec.Metrics.TTFOms, "the refusal is output")
	assert.Equal(t, rec.Metrics.TTFTms, *rec.Metrics.TTFOms, "TTFO at the first refusal chunk")
	assert.Less(t, rec.Metrics.TTFTms, rec.Metrics.E2ELms, "TTFT is not the whole request")
	assert.Equal(t, len(refusal), rec.Metrics.TokenChunks, "refusal chunks are tokens")
	assert.Empty(t, rec.Metrics.DecodeTiming, "paced refusal chunks are timed")
	assert.Greater(t, rec.Metrics.GenTPS, 0.0, "gen_tps measured, not 0")
}

// TestCase15RootCauseFirst: an HTTP 400 is one root cause. The server's
// reason is the first issue; the check failures that follow from it come
// after, marked as consequences, with the reference's texts.
func TestCase15RootCauseFirst(t *testing.T) {
	srv := serve(t, fixtures.Script{Status: 400, ErrorBody: `{"error":{"message":"max_tokens is too large: 99999","type":"invalid_request_error","code":400}}`})
	out := record(t, srv, simpleCase("bad", `"checks":{"finish_reason":["stop"],"min_chars":10,"required_regex":["Paris"]}`))
	require.Error(t, out.Err, "the request failed")
	issues := out.Record.Quality.Issues
	require.Len(t, issues, 5, "root cause and four consequences: %q", issues)
	assert.True(t, strings.HasPrefix(issues[0], "request error: "), "the request error first: %s", issues[0])
	assert.Contains(t, issues[0], "max_tokens is too large: 99999", "the server's reason first")
	assert.Equal(t, []string{
		runner.ConsequencePrefix + "HTTP error 400",
		runner.ConsequencePrefix + "finish_reason None not in allowed set ['stop']",
		runner.ConsequencePrefix + "content shorter than min_chars=10",
		runner.ConsequencePrefix + "required_regex did not match: Paris",
	}, issues[1:], "the consequences, marked, with the reference's texts")
}
