package runner

import (
	"context"
	"fmt"
	"math"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// send sends case c's request to its endpoint: a stream for chat,
// responses and completions (stream.Client.ChatStream reads each by its
// grammar), one batch for embeddings (sendEmbeddings). inputs is the
// embeddings batch size, 0 for the streamed endpoints.
func (r *Runner) send(ctx context.Context, c workloads.Case, req stream.Request) (res *stream.Result, inputs int, err error) {
	if c.Endpoint != workloads.EndpointEmbeddings {
		res, err = r.client.ChatStream(ctx, req)
		return res, 0, err
	}
	in := embeddingInputs(c)
	res, err = sendEmbeddings(ctx, r.client, stream.EmbedRequest{Model: req.Model, Input: in,
		ExtraBody: withoutKey(c.ExtraBody, "input"), Timeout: req.Timeout})
	return res, len(in), err
}

// embeddingInputs is an embeddings case's batch: extra_body "input" when
// it is a list of strings (or one string), else the text of each message,
// one input per message.
func embeddingInputs(c workloads.Case) []string {
	switch v := c.ExtraBody["input"].(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		if len(out) == len(v) {
			return out
		}
	}
	out := make([]string, 0, len(c.Messages))
	for _, m := range c.Messages {
		if s, ok := m["content"].(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// sendEmbeddings sends one embeddings batch and reports it as a Result
// the record is built from: E2ELms is the batch's latency, prompt tokens
// from usage; TTFT, TPOT and the rates are NaN (null in the record: an
// answer that is not streamed has no first token), DecodeTiming says so
// and DecodeNote gives the inputs/s.
func sendEmbeddings(ctx context.Context, c *stream.Client, req stream.EmbedRequest) (*stream.Result, error) {
	er, err := c.Embed(ctx, req)
	nan := math.NaN()
	res := &stream.Result{StartedAt: er.StartedAt, StatusCode: er.StatusCode, E2ELms: er.LatencyMS,
		TTFTms: nan, TPOTms: nan, GenTPS: nan, PromptTPS: nan, RefTPOTms: nan, RefGenTPS: nan,
		Usage: er.Usage, DecodeTiming: stream.DecodeNoTokens}
	if er.Usage != nil {
		res.PromptTokens = er.Usage.PromptTokens
	}
	res.DecodeNote = fmt.Sprintf("embeddings are not streamed: %d inputs in %.1f ms", er.Inputs, er.LatencyMS)
	if err == nil {
		res.DecodeNote += fmt.Sprintf(" (%.1f inputs/s, %d dimensions)", er.InputsPerSec, er.Dims())
		res.Done, res.FinishReason = true, "stop"
	}
	return res, err
}

// withoutKey is m without key k (m itself when it has no k).
func withoutKey(m map[string]any, k string) map[string]any {
	if _, ok := m[k]; !ok {
		return m
	}
	out := make(map[string]any, len(m))
	for kk, v := range m {
		if kk != k {
			out[kk] = v
		}
	}
	return out
}

// recordEndpoint is the record's request.endpoint: "" (omitted) for chat.
func recordEndpoint(e workloads.Endpoint) string {
	if e == workloads.EndpointChat {
		return ""
	}
	return string(e)
}

// caseIssues judges case c's answer by its checks (evaluateChoices),
// whatever the streamed endpoint. An embeddings answer holds vectors, no
// text: the text checks do not apply, and a failed request is its issue
// (the request error).
func caseIssues(c workloads.Case, status int, res *stream.Result) []checks.Issue {
	if c.Endpoint == workloads.EndpointEmbeddings {
		return nil
	}
	return evaluateChoices(c.Checks, status, res)
}
