package workloads_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/workloads"
)

func TestEndpointFromCaseAndDefaults(t *testing.T) {
	w, err := workloads.Parse([]byte(`{"defaults":{"endpoint":"responses"},"cases":[
		{"id":"a","messages":[{"role":"user","content":"hi"}]},
		{"id":"b","endpoint":"Embeddings","messages":[{"role":"user","content":"hi"}]}]}`), "w.json")
	require.NoError(t, err, "a workload choosing endpoints parses")
	assert.Equal(t, workloads.EndpointResponses, w.Cases[0].Endpoint, "the defaults' endpoint")
	assert.Equal(t, workloads.EndpointEmbeddings, w.Cases[1].Endpoint, "the case's endpoint wins, any case")

	w, err = workloads.Parse([]byte(`{"cases":[{"messages":[{"role":"user","content":"hi"}]}]}`), "w.json")
	require.NoError(t, err, "a plain workload parses")
	assert.Equal(t, workloads.EndpointChat, w.Cases[0].Endpoint, "chat by default")
	assert.Equal(t, "/v1/chat/completions", w.Cases[0].Endpoint.Path(), "the chat path")
}

func TestEndpointBadValueNamesFileCaseAndField(t *testing.T) {
	_, err := workloads.Parse([]byte(`{"defaults":{"endpoint":3},"cases":[{"id":"x","endpoint":"rerank","messages":[{"role":"user","content":"hi"}]}]}`), "w.json")
	require.Error(t, err, "unknown endpoints are refused")
	assert.Contains(t, err.Error(), `w.json: case "x": endpoint: want one of chat, responses, completions, embeddings, got "rerank"`, "names file, case, field")
	assert.Contains(t, err.Error(), "defaults.endpoint: want a string", "names the defaults' field")
}
