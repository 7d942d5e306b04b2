package stream

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/workloads"
)

// FuzzResponsesEvents feeds arbitrary bodies through the Responses-API
// reader: it must never panic (negative or huge output indexes, deltas
// that are not strings, items without ids), and a stream succeeds exactly
// when it reached a terminal event.
func FuzzResponsesEvents(f *testing.F) {
	f.Add([]byte(rev(0, "response.created", respObj) + rev(1, "response.output_text.delta", `"item_id":"m","output_index":0,"delta":"hi"`) +
		rev(2, "response.completed", `"response":{"id":"resp_1","usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`)))
	f.Add([]byte(rev(0, "response.function_call_arguments.delta", `"item_id":"f","output_index":-3,"delta":"{"`) +
		rev(1, "response.output_item.done", `"output_index":-1,"item":{"type":"function_call","id":"f","name":"x","arguments":"{}"}`) +
		rev(2, "response.incomplete", `"response":{"incomplete_details":{"reason":"content_filter"}}`)))
	f.Add([]byte(rev(0, "response.output_text.done", `"item_id":"m","text":"whole"`) + rev(1, "response.failed", `"response":{"error":"boom"}`)))
	f.Add([]byte(rev(0, "response.reasoning_text.delta", `"delta":7`)))
	f.Fuzz(func(t *testing.T, body []byte) {
		st := &state{res: &Result{}, start: time.Now(), endpoint: workloads.EndpointResponses}
		err := st.read(bytes.NewReader(body), 4096)
		st.finish(time.Now())
		if err == nil {
			assert.True(t, st.res.Done, "success only at a terminal event")
		}
		assert.LessOrEqual(t, len(st.res.ITLms), max(st.res.TokenChunks-1, 0), "at most one gap per pair of token events")
	})
}
