package workloads

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/contract"
)

func TestParseProtocolAcceptsEveryKindWithItsShape(t *testing.T) {
	spec, err := parseProtocol(map[string]any{"level": "should", "check": "stream_agrees", "compare": "non_stream"})
	require.NoError(t, err)
	assert.Equal(t, string(contract.Should), spec.Level, "levels are case-insensitive")
	assert.True(t, spec.Stream, "streamed by default")
	assert.Equal(t, contract.EndpointChat, spec.Endpoint)
	for _, k := range contract.Kinds() {
		assert.NotEmpty(t, contract.Rules[k].Text, "%s has a rule", k)
		assert.Contains(t, contract.Rules[k].Ref, "https://", "%s cites its reference", k)
	}
}

func TestParseProtocolErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name  string
		raw   map[string]any
		field string
		msg   string
	}{
		{"no level", map[string]any{"check": "stream_framing"}, "protocol.level", "missing; want MUST, SHOULD or MAY"},
		{"bad level", map[string]any{"level": "OPTIONAL", "check": "stream_framing"}, "protocol.level", `want MUST, SHOULD or MAY, got "OPTIONAL"`},
		{"unknown kind", map[string]any{"level": "MUST", "check": "stream_frameing"}, "protocol.check", `unknown check kind "stream_frameing" (did you mean "stream_framing"?)`},
		{"unknown key", map[string]any{"level": "MUST", "check": "stream_framing", "strem": false}, "protocol.strem", `unknown key (did you mean "stream"?)`},
		{"compare missing", map[string]any{"level": "MUST", "check": "usage_prompt_agrees"}, "protocol.compare", `set "compare": "non_stream"`},
		{"non-streamed check streams", map[string]any{"level": "MUST", "check": "completion_object"}, "protocol.stream", `set "stream": false`},
		{"streamed check not streamed", map[string]any{"level": "MUST", "check": "stream_framing", "stream": false}, "protocol.stream", `remove "stream": false`},
		{"raw body missing", map[string]any{"level": "MUST", "check": "malformed_body"}, "protocol.raw_body", `set "raw_body"`},
		{"models endpoint", map[string]any{"level": "MUST", "check": "models_list"}, "protocol.endpoint", `set "endpoint": "/v1/models"`},
		{"unknown model unnamed", map[string]any{"level": "MUST", "check": "unknown_model", "stream": false}, "protocol.body", `set "body": {"model": "…"}`},
		{"bad cancel_after", map[string]any{"level": "MAY", "check": "cancel_stops", "cancel_after": 0}, "protocol.cancel_after", "want a number of token chunks >= 1, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseProtocol(tt.raw)
			require.Error(t, err)
			var se *checks.SpecError
			require.True(t, errors.As(err, &se), "a *checks.SpecError: %v", err)
			assert.Equal(t, tt.field, se.Field, "the field: %v", err)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}
