package resultio

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// TestOrderedJSONKeepsFileOrder: workload.defaults (with its checks) and
// request.extra_body keep the key order they were written in, as the
// reference's dicts do; the expected text is Python's
// json.dumps(json.loads(raw), indent=2) of the same JSON.
func TestOrderedJSONKeepsFileOrder(t *testing.T) {
	info := results.WorkloadInfo{
		Name: "w", Path: "~/w.json", Repetitions: 1,
		Defaults:     map[string]any{"max_tokens": 128},
		DefaultsJSON: json.RawMessage(`{"max_tokens": 128, "checks": {"required_regex": ["x"], "finish_reason": ["stop"]}, "extra_body": {"b": 1.5e3, "a": 1, "c": "é"}}`),
	}
	got, err := pyJSON(struct {
		Workload results.WorkloadInfo `json:"workload"`
	}{info}, jsonOpts{indent: true})
	require.NoError(t, err, "encode")
	assert.Equal(t, `{
  "workload": {
    "name": "w",
    "description": "",
    "path": "~/w.json",
    "defaults": {
      "max_tokens": 128,
      "checks": {
        "required_regex": [
          "x"
        ],
        "finish_reason": [
          "stop"
        ]
      },
      "extra_body": {
        "b": 1500.0,
        "a": 1,
        "c": "\u00e9"
      }
    },
    "repetitions": 1
  }
}`, string(got), "the reference's layout: file order, Python floats, ensure_ascii")

	req := results.RequestInfo{
		MaxTokens:     256,
		ExtraBody:     map[string]any{"top_p": json.Number("1"), "temperature": json.Number("0.20"), "chat_template_kwargs": map[string]any{"z": json.Number("1"), "a": nil}},
		ExtraBodyJSON: json.RawMessage(`{"top_p": 1, "temperature": 0.20, "chat_template_kwargs": {"z": 1, "a": null}}`),
	}
	got, err = pyJSON(req, jsonOpts{})
	require.NoError(t, err, "encode request")
	assert.Equal(t, `{"max_tokens": 256, "request_path": null, "enable_thinking": null, "extra_body": {"top_p": 1, "temperature": 0.2, "chat_template_kwargs": {"z": 1, "a": null}}, "message_count": 0}`,
		string(got), "extra_body in file order")

	row := RecordRow(results.Record{Request: req})
	assert.Contains(t, row, `{"chat_template_kwargs": {"a": null, "z": 1}, "temperature": 0.2, "top_p": 1}`,
		"the CSV/SQL column keeps the reference's json.dumps(sort_keys=True)")

	req.ExtraBodyJSON = nil
	got, err = pyJSON(req, jsonOpts{})
	require.NoError(t, err, "encode request without order")
	assert.Contains(t, string(got), `"extra_body": {"chat_template_kwargs": {"a": null, "z": 1}, "temperature": 0.2, "top_p": 1}`, "without the ordered text the map is written sorted")
}
