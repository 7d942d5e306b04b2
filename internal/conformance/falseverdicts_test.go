package conformance_test

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

	"github.com/benchserve/benchserve/internal/conformance"
	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/longtest"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// script is a scripted server: a streamed request gets events (each
// written as one "data: …" event, "" a keep-alive comment) with
// contentType, then raw bytes; a non-streamed one gets answer.
type script struct {
	events      []string
	contentType string
	raw         string
	answer      string
	breakAfter  int // > 0: abort the connection after that many events
}

func (s script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stream bool `json:"stream"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	if !body.Stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(s.answer))
		return
	}
	ct := s.contentType
	if ct == "" {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	for i, ev := range s.events {
		if s.breakAfter > 0 && i == s.breakAfter {
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		_, _ = fmt.Fprintf(w, "data: %s\n\n", ev)
	}
	_, _ = w.Write([]byte(s.raw))
}

// chunk is a chat.completion.chunk of one choice (index 0) with delta
// and finish ("" none).
func chunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
}

// usageChunk is the include_usage chunk.
func usageChunk(prompt, completion int) string {
	return fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, prompt, completion, prompt+completion)
}

// answer is a well-formed stream of n content tokens ending with finish,
// the usage chunk (completion tokens usage) and [DONE].
func answer(n int, finish string, usage int) []string {
	evs := []string{chunk(`{"role":"assistant","content":""}`, "")}
	for range n {
		evs = append(evs, chunk(`{"content":"w "}`, ""))
	}
	return append(evs, chunk(`{}`, finish), usageChunk(5, usage), "[DONE]")
}

// judge runs the builtin suite's contract id on the scripted server.
func judge(t *testing.T, id string, s script) conformance.Outcome {
	t.Helper()
	return judgeOn(t, id, s)
}

// judgeOn runs the builtin suite's contract id on a server answering
// with h.
func judgeOn(t *testing.T, id string, h http.Handler) conformance.Outcome {
	t.Helper()
	w, err := workloads.Conformance()
	require.NoError(t, err, "the builtin suite parses")
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, c := range w.Cases {
		if c.ID != id {
			continue
		}
		in := conformance.Input{Protocol: c.Protocol, Messages: c.Messages, MaxTokens: c.EffectiveMaxTokens(),
			EnableThinking: c.EnableThinking, ExtraBody: c.ExtraBody}
		return conformance.Run(context.Background(), conformance.Target{Sender: clientSender{&stream.Client{BaseURL: srv.URL}}, Model: "m"}, in)
	}
	t.Fatalf("no contract %s in the builtin suite", id)
	return conformance.Outcome{}
}

func TestALongStreamIsJudgedWhole(t *testing.T) {
	s := script{events: answer(3000, "stop", 3000)}
	for _, id := range []string{"stream.finish_once", "stream.usage_chunk", "stream.framing", "stream.same_id"} {
		o := judge(t, id, s)
		assert.Equal(t, contract.Pass, o.Verdict, "%s on a correct stream of 3,004 events: %s; got %s", id, o.Evidence, o.Received)
	}
}

func TestALargeEventIsJudged(t *testing.T) {
	big := strings.Repeat("x", 40<<10)
	s := script{events: []string{chunk(`{"role":"assistant","content":""}`, ""), chunk(`{"content":"`+big+`"}`, ""), chunk(`{}`, "stop"), usageChunk(5, 1), "[DONE]"}}
	for _, id := range []string{"stream.framing", "stream.same_id", "stream.finish_once"} {
		o := judge(t, id, s)
		assert.Equal(t, contract.Pass, o.Verdict, "%s on a stream with a 40 KiB event: %s; got %s", id, o.Evidence, o.Received)
	}
}

func TestAStreamPastTheCapIsNotJudgedAsAPart(t *testing.T) {
	longtest.Skip(t, "about 25 s under -race: a stream of 65,546 events")
	o := judge(t, "stream.usage_chunk", script{events: answer(conformance.KeptEvents+10, "stop", conformance.KeptEvents+10)})
	assert.Equal(t, contract.Skip, o.Verdict, "a stream past KeptEvents is not judged on its first events: %s", o.Evidence)
	assert.Contains(t, o.Evidence, "past the", "the evidence says the stream passed the cap")
}

func TestLengthShortOfMaxTokensFailsLimitsStop(t *testing.T) {
	o := judge(t, "limits.stop", script{events: answer(8, "length", 8)})
	assert.Equal(t, contract.Fail, o.Verdict, "\"length\" after 8 of 48 tokens is not a cut answer: %s", o.Evidence)
	assert.Contains(t, o.Evidence, "after 8 of max_tokens 48", "the evidence gives the count")
	o = judge(t, "limits.stop", script{events: answer(48, "length", 48)})
	assert.Equal(t, contract.Skip, o.Verdict, "an answer cut at max_tokens before the stop string is a skip: %s", o.Evidence)
}

func TestImpossibleUsageFails(t *testing.T) {
	zero := answer(6, "stop", 0)
	zero[len(zero)-2] = usageChunk(0, 0)
	for _, id := range []string{"usage.total", "usage.max_tokens"} {
		o := judge(t, id, script{events: zero})
		assert.Equal(t, contract.Fail, o.Verdict, "%s with all-zero usage: %s", id, o.Evidence)
		assert.Contains(t, o.Evidence, "all zero", "%s names the zero usage", id)
	}
	o := judge(t, "usage.total", script{events: answer(6, "stop", 0)})
	assert.Equal(t, contract.Fail, o.Verdict, "completion_tokens 0 after 6 token chunks: %s", o.Evidence)
}

func TestACutAnswerSayingStopFailsLengthFinish(t *testing.T) {
	o := judge(t, "usage.length_finish", script{events: answer(8, "stop", 0)})
	assert.Equal(t, contract.Fail, o.Verdict, "8 token chunks for max_tokens 8 ending \"stop\", usage saying 0: %s", o.Evidence)
}

func TestAnEndOfSequenceCountedInUsageIsNoCut(t *testing.T) {
	o := judge(t, "usage.length_finish", script{events: answer(7, "stop", 8)})
	assert.Equal(t, contract.Skip, o.Verdict, "7 token chunks for max_tokens 8 ending \"stop\", usage 8 (EOS counted, as Ollama does): %s", o.Evidence)
	assert.Contains(t, o.Evidence, "end-of-sequence", "the evidence says why")
}

func TestMaxTokensCountsTheChunks(t *testing.T) {
	o := judge(t, "usage.max_tokens", script{events: answer(24, "length", 8)})
	assert.Equal(t, contract.Fail, o.Verdict, "24 token chunks for max_tokens 8, usage saying 8: %s", o.Evidence)
	assert.Contains(t, o.Evidence, "24 token chunks", "the evidence counts the chunks")
}

func TestAClosingThinkTagInContentFailsReasoning(t *testing.T) {
	evs := []string{chunk(`{"role":"assistant","content":""}`, ""), chunk(`{"content":"hmm, let me see"}`, ""),
		chunk(`{"content":"</think>"}`, ""), chunk(`{"content":"Paris."}`, ""), chunk(`{}`, "stop"), usageChunk(5, 3), "[DONE]"}
	o := judge(t, "reasoning.separated", script{events: evs})
	assert.Equal(t, contract.Fail, o.Verdict, "only </think> in content is reasoning leaked: %s", o.Evidence)
	assert.Contains(t, o.Evidence, "</think>")
}

func TestChoicesNJudgesEveryChoice(t *testing.T) {
	two := func(delta1, finish1 string) []string {
		c1 := func(delta, finish string) string {
			return strings.Replace(chunk(delta, finish), `"index":0`, `"index":1`, 1)
		}
		return []string{chunk(`{"role":"assistant","content":""}`, ""), c1(delta1, ""), chunk(`{"content":"a"}`, ""),
			c1(`{"content":"b"}`, ""), chunk(`{}`, "stop"), c1(`{}`, finish1), usageChunk(5, 2), "[DONE]"}
	}
	o := judge(t, "choices.n", script{events: two(`{"role":"assistant","content":""}`, "stop")})
	require.Equal(t, contract.Pass, o.Verdict, "two well-formed choices: %s; got %s", o.Evidence, o.Received)
	o = judge(t, "choices.n", script{events: two(`{"role":"assistant","content":""}`, "")})
	assert.Equal(t, contract.Fail, o.Verdict, "choice 1 without a finish_reason: %s", o.Evidence)
	o = judge(t, "choices.n", script{events: two(`{"content":""}`, "stop")})
	assert.Equal(t, contract.Fail, o.Verdict, "choice 1 without a role: %s", o.Evidence)
}

func TestAScalarIsNotAJSONObject(t *testing.T) {
	evs := []string{chunk(`{"role":"assistant","content":""}`, ""), chunk(`{"content":"42"}`, ""), chunk(`{}`, "stop"), usageChunk(5, 1), "[DONE]"}
	o := judge(t, "structured.json_object", script{events: evs})
	assert.Equal(t, contract.Fail, o.Verdict, "json_object answered 42: %s", o.Evidence)
}

func TestFramingReadsTheRawStream(t *testing.T) {
	o := judge(t, "stream.framing", script{events: answer(3, "stop", 3), raw: "data: " + chunk(`{"content":"late"}`, "") + "\n\n"})
	assert.Equal(t, contract.Fail, o.Verdict, "a chunk after [DONE]: %s", o.Evidence)
	assert.Contains(t, o.Evidence, "after data: [DONE]")
	o = judge(t, "stream.framing", script{events: answer(3, "stop", 3), raw: ": a comment\n\n"})
	assert.Equal(t, contract.Pass, o.Verdict, "a comment after [DONE] is no event: %s; got %s", o.Evidence, o.Received)
	o = judge(t, "stream.framing", script{events: answer(3, "stop", 3), contentType: "text/plain"})
	assert.Equal(t, contract.Fail, o.Verdict, "a text/plain stream: %s", o.Evidence)
	assert.Contains(t, o.Evidence, "text/plain")
}

func TestAStreamBrokenPartWayFails(t *testing.T) {
	o := judge(t, "usage.length_finish", script{events: answer(8, "length", 8), breakAfter: 3})
	assert.Equal(t, contract.Fail, o.Verdict, "a stream broken after 3 events is not an answer that ended by itself: %s", o.Evidence)
	assert.Contains(t, o.Evidence, "broke", "the evidence says the stream broke")
}

func TestNonStreamedToolCallsAreChecked(t *testing.T) {
	call := `{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}`
	evs := []string{chunk(`{"role":"assistant","content":null}`, ""), chunk(`{"tool_calls":[`+call+`]}`, ""), chunk(`{}`, "tool_calls"), usageChunk(5, 3), "[DONE]"}
	good := `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`
	o := judge(t, "tools.stream_agrees", script{events: evs, answer: good})
	require.Equal(t, contract.Pass, o.Verdict, "the same call both ways: %s; got %s", o.Evidence, o.Received)
	noID := strings.Replace(strings.Replace(good, `"id":"call_1"`, `"id":""`, 1), `"tool_calls"}`, `"stop"}`, 1)
	o = judge(t, "tools.stream_agrees", script{events: evs, answer: noID})
	assert.Equal(t, contract.Fail, o.Verdict, "a non-streamed call without an id: %s", o.Evidence)
	stop := strings.Replace(good, `"finish_reason":"tool_calls"`, `"finish_reason":"stop"`, 1)
	o = judge(t, "tools.stream_agrees", script{events: evs, answer: stop})
	assert.Equal(t, contract.Fail, o.Verdict, "a non-streamed call with finish_reason stop: %s", o.Evidence)
}

func TestServerChosenNamesAreCut(t *testing.T) {
	long := strings.Repeat("m", 10<<10)
	evs := answer(3, "stop", 3)
	for i := range evs {
		evs[i] = strings.Replace(evs[i], `"model":"m"`, `"model":"`+long+`"`, 1)
	}
	o := judge(t, "stream.same_id", script{events: evs})
	require.Equal(t, contract.Pass, o.Verdict, "one id and model throughout: %s", o.Evidence)
	assert.Less(t, len(o.Evidence), 300, "a 10 KB model name is cut in the evidence: %d bytes", len(o.Evidence))
	assert.Contains(t, o.Evidence, "bytes)", "the evidence marks the cut")
}

// azureFirst is Azure OpenAI's first chunk: the prompt's content-filter
// results, no choice, an empty id, model and object.
const azureFirst = `{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}`

func TestAzurePromptFilterChunkIsNotJudged(t *testing.T) {
	evs := append([]string{azureFirst}, answer(3, "stop", 3)...)
	for _, id := range []string{"stream.framing", "stream.same_id", "stream.first_role", "stream.finish_once", "stream.usage_chunk"} {
		o := judge(t, id, script{events: evs})
		assert.Equal(t, contract.Pass, o.Verdict, "%s with Azure's prompt_filter_results first: %s; got %s", id, o.Evidence, o.Received)
	}
	o := judge(t, "stream.framing", script{events: evs})
	assert.Contains(t, o.Evidence, "prompt_filter_results", "framing says it left Azure's chunk out")
	bad := append([]string{strings.Replace(azureFirst, `"prompt_filter_results"`, `"other"`, 1)}, answer(3, "stop", 3)...)
	o = judge(t, "stream.same_id", script{events: bad})
	assert.Equal(t, contract.Fail, o.Verdict, "a chunk without an id that is not Azure's preamble still fails: %s", o.Evidence)
}

// refuse answers every request with a 400 whose error message is msg.
type refuse string

func (m refuse) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": string(m), "type": "invalid_request_error"}})
	_, _ = w.Write(b)
}

// A server that says it does not serve n or json_schema gets
// "unsupported", neither a pass nor a failure nor a skip; a 4xx that does
// not name n is still a failure.
func TestARefusedFeatureIsUnsupported(t *testing.T) {
	w, err := workloads.Conformance()
	require.NoError(t, err, "the builtin suite parses")
	run := func(id string, h http.Handler) conformance.Outcome {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		for _, c := range w.Cases {
			if c.ID == id {
				in := conformance.Input{Protocol: c.Protocol, Messages: c.Messages, MaxTokens: c.EffectiveMaxTokens(), ExtraBody: c.ExtraBody}
				return conformance.Run(context.Background(), conformance.Target{Sender: clientSender{&stream.Client{BaseURL: srv.URL}}, Model: "m"}, in)
			}
		}
		t.Fatalf("no contract %s", id)
		return conformance.Outcome{}
	}
	o := run("choices.n", refuse("n > 1 is not supported"))
	assert.Equal(t, contract.Unsupported, o.Verdict, "choices.n refused naming n: %s", o.Evidence)
	assert.Contains(t, o.Evidence, "refused with HTTP 400 naming n", "the evidence quotes the refusal")
	assert.Contains(t, o.Message("choices.n", &workloads.Protocol{Level: "SHOULD", Check: "choices_n"}), "choices.n (SHOULD): unsupported by the server: ", "the message says unsupported")
	o = run("structured.json_schema", refuse("response_format json_schema is not supported"))
	assert.Equal(t, contract.Unsupported, o.Verdict, "json_schema refused: %s", o.Evidence)
	o = run("choices.n", refuse("bad request"))
	assert.Equal(t, contract.Fail, o.Verdict, "a 4xx not naming n is a failure: %s", o.Evidence)
	assert.False(t, contract.Failing(contract.Must, contract.Unsupported, true), "unsupported never fails a run, even a strict MUST")
}
