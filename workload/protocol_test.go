package workload_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/conformance"
	"github.com/benchserve/benchserve/workload"
)

func TestProtocolCaseParses(t *testing.T) {
	w, err := workload.Parse([]byte(`{"defaults": {"checks": {"min_chars": 5}}, "cases": [
		{"id": "framing", "messages": [{"role": "user", "content": "hi"}], "protocol": {"level": "MUST", "check": "stream_framing"}},
		{"id": "plain", "messages": [{"role": "user", "content": "hi"}]}]}`), "suite.json")
	require.NoError(t, err)
	require.NotNil(t, w.Cases[0].Protocol)
	assert.Equal(t, conformance.StreamFraming, w.Cases[0].Protocol.Check)
	assert.Nil(t, w.Cases[0].Checks, "defaults.checks do not apply to a contract")
	assert.Nil(t, w.Cases[1].Protocol)
	assert.NotNil(t, w.Cases[1].Checks, "an ordinary case keeps its checks")
}

func TestProtocolErrorsNameFileCaseField(t *testing.T) {
	_, err := workload.Parse([]byte(`{"cases": [
		{"id": "x", "messages": [{"role": "user", "content": "hi"}], "checks": {"min_chars": 1}, "protocol": {"level": "MUST", "check": "stream_framng"}},
		{"id": "y", "messages": [{"role": "user", "content": "hi"}], "protocol": "MUST"}]}`), "suite.json")
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `suite.json: case "x": checks: a protocol case is judged by protocol.check`)
	assert.Contains(t, msg, `suite.json: case "x": protocol.check: unknown check kind "stream_framng" (did you mean "stream_framing"?)`)
	assert.Contains(t, msg, `suite.json: case "y": protocol: want an object with level and check, got "MUST"`)
}
