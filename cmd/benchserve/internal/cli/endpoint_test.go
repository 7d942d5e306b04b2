package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

func TestEndpointFlagSendsEveryCaseThere(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	wl := writeWorkloadFile(t, dir, "emb.json", `{"name":"emb","cases":[
		{"id":"one","messages":[{"role":"user","content":"embed me"}]},
		{"id":"three","messages":[{"role":"user","content":"x"}],"extra_body":{"input":["a","b","c"]}}]}`)
	out := filepath.Join(dir, "emb-out.json")
	res := invoke(t, "--url", srv.URL, "--workload", wl, "--endpoint", "embeddings", "--num-prompts", "6", "--request-rate", "inf",
		"--max-concurrency", "2", "--output", out)
	require.Equal(t, ExitOK, res.code, "an embeddings load run passes: %s", res.stderr)
	p := readPayload(t, out)
	require.Len(t, p.Results, 6, "every request recorded")
	for _, rec := range p.Results {
		assert.Equal(t, "embeddings", rec.Request.Endpoint, "%s: sent to embeddings", rec.CaseID)
		assert.Equal(t, map[string]int{"one": 1, "three": 3}[rec.CaseID], rec.Request.Inputs, "%s: batch size", rec.CaseID)
		assert.Greater(t, rec.Metrics.E2ELms, 0.0, "%s: latency measured", rec.CaseID)
	}
	assert.Empty(t, srv.ChatRequests(), "nothing went to chat completions")

	chat := writeWorkloadFile(t, dir, "chat.json", `{"name":"chat","cases":[{"id":"one","messages":[{"role":"user","content":"say hi"}]}]}`)
	res = invoke(t, "--url", srv.URL, "--workload", chat, "--endpoint", "responses", "--repetitions", "1", "--output", filepath.Join(dir, "r.json"))
	require.Equal(t, ExitOK, res.code, "a Responses-API run passes: %s", res.stderr)
	for _, rec := range readPayload(t, filepath.Join(dir, "r.json")).Results {
		assert.Equal(t, "responses", rec.Request.Endpoint, "%s: sent to responses", rec.CaseID)
		assert.Greater(t, rec.Metrics.CompletionTokens, 0, "%s: tokens from response.completed", rec.CaseID)
	}

	res = invoke(t, "--url", srv.URL, "--endpoint", "responses")
	assert.Equal(t, ExitUsage, res.code, "--endpoint without --workload is a usage error")
	assert.Contains(t, res.stderr, "--endpoint applies to --workload runs", "says why")
	res = invoke(t, "--url", srv.URL, "--workload", wl, "--endpoint", "rerank")
	assert.Equal(t, ExitUsage, res.code, "an unknown endpoint is a usage error")
}
