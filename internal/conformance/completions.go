package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
)

// completionsIndex judges completions.index, the rule of the servers' own
// suites (llama.cpp tools/server/tests/unit/test_completion.py, vLLM
// tests/entrypoints/openai/test_completion.py): a non-streamed
// /v1/completions request with the prompts contract.CompletionPrompts is
// a text_completion with one choice per prompt, choices[].index each
// prompt's position once, every choice a text and a finish_reason. An
// endpoint not served (404, 405, 501) is a skip.
func (r *contractRun) completionsIndex(ctx context.Context) Outcome {
	prompts := contract.CompletionPrompts
	b, _ := json.Marshal(map[string]any{"model": r.t.Model, "prompt": prompts, "max_tokens": r.limit("max_tokens")})
	ex := r.do(ctx, http.MethodPost, contract.EndpointCompletions, b, nil)
	bad := func(format string, args ...any) Outcome {
		return withStatus(failed(ex.sentText(), ex.gotText(), format, args...), ex.status)
	}
	switch {
	case ex.status == 0:
		return bad("no answer")
	case notServed(ex.status):
		return withStatus(skip("not served: POST %s is answered HTTP %d", contract.EndpointCompletions, ex.status), ex.status)
	case ex.status != http.StatusOK:
		return bad("HTTP %d, not 200", ex.status)
	}
	a, problem := readTextCompletion(ex.body)
	if problem != "" {
		return bad("%s", problem)
	}
	if len(a.Choices) != len(prompts) {
		return bad("%d prompts got %d choices", len(prompts), len(a.Choices))
	}
	seen := map[int]bool{}
	for i, c := range a.Choices {
		switch {
		case c.Index == nil || *c.Index < 0 || *c.Index >= len(prompts):
			return bad("choices[%d] has index %s, not a prompt's position 0–%d", i, indexText(c.Index), len(prompts)-1)
		case seen[*c.Index]:
			return bad("choices[%d] repeats index %d", i, *c.Index)
		case c.Text == nil:
			return bad("choices[%d] has no text", i)
		case c.FinishReason == nil || *c.FinishReason == "":
			return bad("choices[%d] has no finish_reason", i)
		}
		seen[*c.Index] = true
	}
	return withStatus(pass("%d prompts, %d choices with indexes 0–%d, each a text and a finish_reason", len(prompts), len(a.Choices), len(prompts)-1), ex.status)
}

// completionsN judges completions.n (the servers' suites: vLLM
// tests/entrypoints/openai/test_completion.py, test_completion_streaming
// with n): the first of contract.CompletionPrompts with the case's extra
// body (n >= 2, a seed) gives a text_completion with n choices, indexes
// 0 to n-1 once each, every choice a text and a finish_reason. A 4xx
// naming n is unsupported (as choices.n: the server serves one choice
// only and says so); a 4xx that does not name n fails; an endpoint not
// served (404, 405, 501) is a skip.
func (r *contractRun) completionsN(ctx context.Context) Outcome {
	n, _ := contract.AsInt(r.in.ExtraBody["n"])
	body := map[string]any{"model": r.t.Model, "prompt": contract.CompletionPrompts[0], "max_tokens": r.limit("max_tokens")}
	for k, v := range r.in.ExtraBody {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	ex := r.do(ctx, http.MethodPost, contract.EndpointCompletions, b, nil)
	bad := func(format string, args ...any) Outcome {
		return withStatus(failed(ex.sentText(), ex.gotText(), format, args...), ex.status)
	}
	switch {
	case ex.status == 0:
		return bad("no answer")
	case notServed(ex.status):
		return withStatus(skip("not served: POST %s is answered HTTP %d", contract.EndpointCompletions, ex.status), ex.status)
	case ex.status >= 400 && ex.status < 500 && nMentioned.Match(ex.body):
		return withStatus(unsupported("refused with HTTP %d naming n: %s", ex.status, contract.Cut(strings.TrimSpace(string(ex.body)), 200)), ex.status)
	case ex.status >= 400 && ex.status < 500:
		return bad("HTTP %d does not say n is unsupported", ex.status)
	case ex.status != http.StatusOK:
		return bad("HTTP %d, neither 200 nor a 4xx refusal", ex.status)
	}
	a, problem := readTextCompletion(ex.body)
	if problem != "" {
		return bad("%s", problem)
	}
	if len(a.Choices) != n {
		return bad("n: %d for one prompt got %d choice(s)", n, len(a.Choices))
	}
	seen := map[int]bool{}
	for i, c := range a.Choices {
		switch {
		case c.Index == nil || *c.Index < 0 || *c.Index >= n:
			return bad("choices[%d] has index %s, not 0–%d", i, indexText(c.Index), n-1)
		case seen[*c.Index]:
			return bad("choices[%d] repeats index %d", i, *c.Index)
		case c.Text == nil:
			return bad("choices[%d] has no text", i)
		case c.FinishReason == nil || *c.FinishReason == "":
			return bad("choices[%d] has no finish_reason", i)
		}
		seen[*c.Index] = true
	}
	return withStatus(pass("n: %d gives %d choices with indexes 0–%d, each a text and a finish_reason", n, n, n-1), ex.status)
}

// textCompletion is the part of a /v1/completions answer the completions
// contracts read.
type textCompletion struct {
	Object  string `json:"object"`
	Choices []struct {
		Index        *int    `json:"index"`
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

// readTextCompletion decodes body as a text_completion; problem says why
// it is not one ("" when it is).
func readTextCompletion(body []byte) (a textCompletion, problem string) {
	if err := json.Unmarshal(body, &a); err != nil {
		return a, "the body is not a JSON object: " + err.Error()
	}
	if a.Object != "text_completion" {
		return a, fmt.Sprintf("object %q, not \"text_completion\"", nm(a.Object))
	}
	return a, ""
}
