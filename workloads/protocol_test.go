package workloads_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/workloads"
)

func TestProtocolCaseParses(t *testing.T) {
	w, err := workloads.Parse([]byte(`{"defaults": {"checks": {"min_chars": 5}}, "cases": [
		{"id": "framing", "messages": [{"role": "user", "content": "hi"}], "protocol": {"level": "MUST", "check": "stream_framing"}},
		{"id": "plain", "messages": [{"role": "user", "content": "hi"}]}]}`), "suite.json")
	require.NoError(t, err)
	require.NotNil(t, w.Cases[0].Protocol)
	assert.Equal(t, string(contract.StreamFraming), w.Cases[0].Protocol.Check)
	assert.Nil(t, w.Cases[0].Checks, "defaults.checks do not apply to a contract")
	assert.Nil(t, w.Cases[1].Protocol)
	assert.NotNil(t, w.Cases[1].Checks, "an ordinary case keeps its checks")
}

func TestProtocolErrorsNameFileCaseField(t *testing.T) {
	_, err := workloads.Parse([]byte(`{"cases": [
		{"id": "x", "messages": [{"role": "user", "content": "hi"}], "checks": {"min_chars": 1}, "protocol": {"level": "MUST", "check": "stream_framng"}},
		{"id": "y", "messages": [{"role": "user", "content": "hi"}], "protocol": "MUST"}]}`), "suite.json")
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `suite.json: case "x": checks: a protocol case is judged by protocol.check`)
	assert.Contains(t, msg, `suite.json: case "x": protocol.check: unknown check kind "stream_framng" (did you mean "stream_framing"?)`)
	assert.Contains(t, msg, `suite.json: case "y": protocol: want an object with level and check, got "MUST"`)
}

func TestProtocolRequestMustHoldWhatTheCheckNeeds(t *testing.T) {
	tests := []struct {
		name, extra, check, want string
	}{
		{"stop", `{}`, "stop_sequence", `extra_body.stop: check stop_sequence needs a stop sequence`},
		{"empty stop", `{"stop": ""}`, "stop_sequence", `extra_body.stop: check stop_sequence needs a stop sequence`},
		{"n", `{"n": 1}`, "choices_n", `extra_body.n: check choices_n needs n >= 2, got 1`},
		{"tools", `{"tool_choice": "none"}`, "tool_choice_none", `extra_body.tools: check tool_choice_none needs tools`},
		{"named", `{"tools": [{"type": "function", "function": {"name": "a"}}], "tool_choice": {"type": "function", "function": {"name": "b"}}}`, "tool_choice_named", `extra_body.tool_choice: tool_choice names "b", which is not one of the tools`},
		{"bad schema", `{"tools": [{"type": "function", "function": {"name": "a", "parameters": {"type": 5}}}]}`, "tool_arguments", `extra_body.tools: the parameters of "a": the schema does not compile`},
		{"format", `{"response_format": {"type": "text"}}`, "json_object", `extra_body.response_format: check json_object needs response_format {"type": "json_object", …}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workloads.Parse([]byte(`{"cases": [{"id": "c", "messages": [{"role": "user", "content": "hi"}], "extra_body": `+tt.extra+`, "protocol": {"level": "MUST", "check": "`+tt.check+`"}}]}`), "suite.json")
			require.Error(t, err)
			assert.Contains(t, err.Error(), `suite.json: case "c": `+tt.want)
		})
	}
}
