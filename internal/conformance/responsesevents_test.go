package conformance_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/contract"
)

// respEvent is one Responses-API event of type typ with the fields of f
// and sequence_number seq.
func respEvent(t *testing.T, typ string, seq int, f map[string]any) string {
	t.Helper()
	f["type"], f["sequence_number"] = typ, seq
	b, err := json.Marshal(f)
	require.NoError(t, err, "event %s", typ)
	return string(b)
}

// respStream is a well-formed Responses stream: one message item whose
// text comes as deltas, then response.completed. Events are numbered
// from 0.
func respStream(t *testing.T, deltas ...string) []string {
	t.Helper()
	resp := func(status string) map[string]any {
		return map[string]any{"response": map[string]any{"id": "resp_1", "object": "response", "status": status}}
	}
	part := func(text string) map[string]any {
		return map[string]any{"item_id": "msg_1", "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": text}}
	}
	evs := []string{respEvent(t, "response.created", 0, resp("in_progress")), respEvent(t, "response.in_progress", 1, resp("in_progress")),
		respEvent(t, "response.output_item.added", 2, map[string]any{"output_index": 0, "item": map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "content": []any{}}}),
		respEvent(t, "response.content_part.added", 3, part(""))}
	text := ""
	for _, d := range deltas {
		evs = append(evs, respEvent(t, "response.output_text.delta", len(evs), map[string]any{"item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": d}))
		text += d
	}
	evs = append(evs, respEvent(t, "response.output_text.done", len(evs), map[string]any{"item_id": "msg_1", "output_index": 0, "content_index": 0, "text": text}),
		respEvent(t, "response.content_part.done", len(evs)+1, part(text)),
		respEvent(t, "response.output_item.done", len(evs)+2, map[string]any{"output_index": 0, "item": map[string]any{"type": "message", "id": "msg_1", "role": "assistant"}}))
	done := resp("completed")
	done["response"].(map[string]any)["usage"] = map[string]any{"input_tokens": 5, "output_tokens": len(deltas), "total_tokens": 5 + len(deltas)}
	return append(evs, respEvent(t, "response.completed", len(evs), done))
}

func TestResponsesEventsPassesAWellFormedStream(t *testing.T) {
	o := judge(t, "responses.events", script{events: respStream(t, "Hello", " there", ".")})
	assert.Equal(t, contract.Pass, o.Verdict, "a well-formed stream: %s; got %s", o.Evidence, o.Received)
	assert.Contains(t, o.Evidence, "11 events in order", "the evidence counts the events")
	assert.Contains(t, o.Evidence, "3 text delta(s) (12 chars", "the evidence counts the deltas and their text")
}

func TestResponsesEventsFailsEachBrokenRule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func([]string) []string
		cause string
	}{
		{"content part before its item", func(e []string) []string { e[2], e[3] = e[3], e[2]; return e }, "which no output_item.added opened"},
		{"first event not response.created", func(e []string) []string { e[0], e[1] = e[1], e[0]; return e }, "not response.created"},
		{"sequence_number repeated", func(e []string) []string {
			e[5] = respEvent(t, "response.output_text.delta", 4, map[string]any{"item_id": "msg_1", "delta": " there"})
			return e
		}, "sequence_number 4 after 4: not increasing"},
		{"no sequence_number", func(e []string) []string {
			e[4] = `{"type":"response.output_text.delta","item_id":"msg_1","delta":"Hello"}`
			return e
		}, "has no sequence_number"},
		{"done text differs from the deltas", func(e []string) []string {
			e[7] = respEvent(t, "response.output_text.done", 7, map[string]any{"item_id": "msg_1", "text": "Hello there!"})
			return e
		}, "is not the 3 deltas joined"},
		{"delta with another item_id", func(e []string) []string {
			e[5] = respEvent(t, "response.output_text.delta", 5, map[string]any{"item_id": "msg_2", "delta": " there"})
			return e
		}, `item_id "msg_2"`},
		{"completed with the item open", func(e []string) []string { return append(e[:9], e[10]) }, "is open (no output_item.done)"},
		{"no terminal event", func(e []string) []string { return e[:len(e)-1] }, "no terminal event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := judge(t, "responses.events", script{events: tc.edit(respStream(t, "Hello", " there", "."))})
			assert.Equal(t, contract.Fail, o.Verdict, "%s: %s", tc.name, o.Evidence)
			assert.Contains(t, o.Evidence, tc.cause, "%s: the evidence names the cause", tc.name)
			assert.NotEmpty(t, o.Received, "%s: the outcome keeps what came back", tc.name)
		})
	}
}

func TestResponsesEventsSkipsAServerWithoutTheEndpoint(t *testing.T) {
	o := judgeOn(t, "responses.events", http.NotFoundHandler())
	assert.Equal(t, contract.Skip, o.Verdict, "404 on /v1/responses: %s", o.Evidence)
	assert.Contains(t, o.Evidence, "HTTP 404", "the evidence gives the status")
}
