package conformance_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/contract"
)

// jsonAnswer answers every request with code and body.
func jsonAnswer(code int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	})
}

func TestCompletionsNJudgesTheChoices(t *testing.T) {
	choice := func(index int, finish string) string {
		return `{"index":` + string(rune('0'+index)) + `,"text":"once","finish_reason":` + finish + `}`
	}
	for _, tc := range []struct {
		name    string
		h       http.Handler
		verdict contract.Verdict
		cause   string
	}{
		{"two choices", jsonAnswer(200, `{"object":"text_completion","choices":[`+choice(0, `"length"`)+`,`+choice(1, `"stop"`)+`]}`), contract.Pass, "n: 2 gives 2 choices with indexes 0–1"},
		{"one choice", jsonAnswer(200, `{"object":"text_completion","choices":[`+choice(0, `"length"`)+`]}`), contract.Fail, "n: 2 for one prompt got 1 choice(s)"},
		{"index repeated", jsonAnswer(200, `{"object":"text_completion","choices":[`+choice(0, `"length"`)+`,`+choice(0, `"length"`)+`]}`), contract.Fail, "choices[1] repeats index 0"},
		{"no finish_reason", jsonAnswer(200, `{"object":"text_completion","choices":[`+choice(0, `"length"`)+`,`+choice(1, `null`)+`]}`), contract.Fail, "choices[1] has no finish_reason"},
		{"chat object", jsonAnswer(200, `{"object":"chat.completion","choices":[]}`), contract.Fail, `object "chat.completion"`},
		{"refused naming n", status(http.StatusBadRequest, "n must be 1"), contract.Unsupported, "refused with HTTP 400 naming n"},
		{"refused without naming n", status(http.StatusBadRequest, "bad request"), contract.Fail, "HTTP 400 does not say n is unsupported"},
		{"5xx", status(http.StatusInternalServerError, "n must be 1"), contract.Fail, "HTTP 500, neither 200 nor a 4xx refusal"},
		{"not served", http.NotFoundHandler(), contract.Skip, "not served"},
	} {
		o := judgeOn(t, "completions.n", tc.h)
		assert.Equal(t, tc.verdict, o.Verdict, "%s: %s", tc.name, o.Evidence)
		assert.Contains(t, o.Evidence, tc.cause, "%s: the evidence names it", tc.name)
	}
}

// recording serves h and keeps the last request body.
type recording struct {
	h    http.Handler
	mu   sync.Mutex
	body []byte
}

func (rc *recording) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.body = b
	rc.mu.Unlock()
	r.Body = io.NopCloser(strings.NewReader(string(b)))
	rc.h.ServeHTTP(w, r)
}

func TestUsageUnaskedFailsAnyUsage(t *testing.T) {
	hello := []string{chunk(`{"role":"assistant","content":""}`, ""), chunk(`{"content":"hi"}`, "")}
	withUsage := strings.Replace(chunk(`{}`, "stop"), `]}`, `],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`, 1)
	withNull := strings.Replace(chunk(`{}`, "stop"), `]}`, `],"usage":null}`, 1)
	for _, tc := range []struct {
		name    string
		events  []string
		verdict contract.Verdict
		cause   string
	}{
		{"no usage", append(append([]string{}, hello...), chunk(`{}`, "stop"), "[DONE]"), contract.Pass, "none of the 3 chunks carries usage"},
		{"usage null", append(append([]string{}, hello...), withNull, "[DONE]"), contract.Pass, "none of the 3 chunks"},
		{"usage chunk", append(append([]string{}, hello...), chunk(`{}`, "stop"), usageChunk(5, 1), "[DONE]"), contract.Fail, "a usage chunk (choices [] and usage) came unasked"},
		{"usage on the finish chunk", append(append([]string{}, hello...), withUsage, "[DONE]"), contract.Fail, "a chunk carries usage unasked"},
	} {
		rc := &recording{h: script{events: tc.events}}
		o := judgeOn(t, "stream.usage_unasked", rc)
		assert.Equal(t, tc.verdict, o.Verdict, "%s: %s", tc.name, o.Evidence)
		assert.Contains(t, o.Evidence, tc.cause, "%s: the evidence names it", tc.name)
		var sent map[string]any
		require.NoError(t, json.Unmarshal(rc.body, &sent), "%s: the request is JSON", tc.name)
		assert.Equal(t, true, sent["stream"], "%s: the request streams", tc.name)
		assert.NotContains(t, sent, "stream_options", "%s: the request has no stream_options", tc.name)
	}
}

// withIDs is respStream with the response id of every response object
// set to respID (the terminal event's to lastID) and the message item's
// id to msgID.
func withIDs(t *testing.T, respID, lastID, msgID string) []string {
	t.Helper()
	evs := respStream(t, "Hello", ".")
	for i, ev := range evs {
		ev = strings.ReplaceAll(ev, `"msg_1"`, `"`+msgID+`"`)
		id := respID
		if i == len(evs)-1 {
			id = lastID
		}
		evs[i] = strings.ReplaceAll(ev, `"resp_1"`, `"`+id+`"`)
	}
	return evs
}

func TestResponsesIDsJudgesThePrefixesAndTheSameID(t *testing.T) {
	for _, tc := range []struct {
		name                string
		resp, last, message string
		verdict             contract.Verdict
		cause               string
	}{
		{"OpenAI's ids", "resp_1", "resp_1", "msg_1", contract.Pass, `the response id "resp_1" in all 3 events that carry the response; message ids msg_* (2 seen)`},
		{"response id unprefixed", "chatcmpl-1", "chatcmpl-1", "msg_1", contract.Fail, `the response id "chatcmpl-1" does not start with "resp_"`},
		{"id changes", "resp_1", "resp_2", "msg_1", contract.Fail, `carries the response id "resp_2", the events before it "resp_1"`},
		{"message id unprefixed", "resp_1", "resp_1", "item_1", contract.Fail, `a message item's id "item_1" does not start with "msg_"`},
	} {
		o := judge(t, "responses.ids", script{events: withIDs(t, tc.resp, tc.last, tc.message)})
		assert.Equal(t, tc.verdict, o.Verdict, "%s: %s", tc.name, o.Evidence)
		assert.Contains(t, o.Evidence, tc.cause, "%s: the evidence names it", tc.name)
	}
	o := judgeOn(t, "responses.ids", http.NotFoundHandler())
	assert.Equal(t, contract.Skip, o.Verdict, "a server without /v1/responses: %s", o.Evidence)
}

// storeServer answers responses.store's two requests: the first with
// first (status and body), the follow-up with second.
type storeServer struct {
	firstCode, secondCode int
	first, second         string
}

func (s storeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	code, answer := s.firstCode, s.first
	if body["previous_response_id"] != nil {
		code, answer = s.secondCode, s.second
	}
	jsonAnswer(code, answer).ServeHTTP(w, r)
}

func TestResponsesStoreIsACapability(t *testing.T) {
	stored := `{"id":"resp_a","object":"response","status":"completed","output":[]}`
	for _, tc := range []struct {
		name    string
		h       http.Handler
		verdict contract.Verdict
		cause   string
	}{
		{"continued", storeServer{200, 200, stored, `{"id":"resp_b","previous_response_id":"resp_a"}`}, contract.Pass, `the response "resp_a" was stored and continued`},
		{"store refused", storeServer{400, 200, `{"error":{"message":"store is not supported"}}`, ""}, contract.Unsupported, "store: true refused with HTTP 400"},
		{"previous refused", storeServer{200, 400, stored, `{"error":{"message":"previous_response_id: stateless server"}}`}, contract.Unsupported, "previous_response_id refused with HTTP 400"},
		{"previous ignored", storeServer{200, 200, stored, `{"id":"resp_b","previous_response_id":null}`}, contract.Fail, "the answer has no previous_response_id"},
		{"previous wrong", storeServer{200, 200, stored, `{"id":"resp_b","previous_response_id":"resp_z"}`}, contract.Fail, `previous_response_id "resp_z" in the answer, not the "resp_a" sent`},
		{"no id", storeServer{200, 200, `{"object":"response"}`, ""}, contract.Fail, "the stored response has no id"},
		{"5xx", storeServer{200, 500, stored, `{"error":{"message":"boom"}}`}, contract.Fail, "HTTP 500 to previous_response_id"},
		{"not served", http.NotFoundHandler(), contract.Skip, "not served"},
	} {
		o := judgeOn(t, "responses.store", tc.h)
		assert.Equal(t, tc.verdict, o.Verdict, "%s: %s", tc.name, o.Evidence)
		assert.Contains(t, o.Evidence, tc.cause, "%s: the evidence names it", tc.name)
	}
}

func TestCacheRepeatJudgesCachedTokens(t *testing.T) {
	answer := func(usage string) http.Handler {
		return jsonAnswer(200, `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":`+usage+`}`)
	}
	for _, tc := range []struct {
		name    string
		h       http.Handler
		verdict contract.Verdict
		cause   string
	}{
		{"cached", answer(`{"prompt_tokens":50,"completion_tokens":1,"total_tokens":51,"prompt_tokens_details":{"cached_tokens":48}}`), contract.Pass, "reports 48 of 50 prompt tokens cached"},
		{"none cached", answer(`{"prompt_tokens":50,"completion_tokens":1,"total_tokens":51,"prompt_tokens_details":{"cached_tokens":0}}`), contract.Fail, "reports cached_tokens 0 of 50 prompt tokens"},
		{"more than the prompt", answer(`{"prompt_tokens":50,"completion_tokens":1,"total_tokens":51,"prompt_tokens_details":{"cached_tokens":60}}`), contract.Fail, "cached_tokens 60 is more than prompt_tokens 50"},
		{"no field", answer(`{"prompt_tokens":50,"completion_tokens":1,"total_tokens":51}`), contract.Skip, "does not report usage.prompt_tokens_details.cached_tokens"},
		{"an error", status(http.StatusServiceUnavailable, "busy"), contract.Fail, "HTTP 503, not 200"},
	} {
		o := judgeOn(t, "cache.repeat", tc.h)
		assert.Equal(t, tc.verdict, o.Verdict, "%s: %s", tc.name, o.Evidence)
		assert.Contains(t, o.Evidence, tc.cause, "%s: the evidence names it", tc.name)
	}
}
