package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
)

// completionsAnswer posts the first of contract.CompletionPrompts to
// /v1/completions with the fields of extra, non-streamed, and reads the
// first choice's text and logprobs. done is true when o is the verdict
// already: no answer or a 5xx (fail), not served (skip), another 4xx
// (unsupported, quoting the refusal), a 200 that is not a text_completion
// with a choice (fail).
func (r *contractRun) completionsAnswer(ctx context.Context, extra map[string]any) (ex *exchange, text string, logprobs json.RawMessage, o Outcome, done bool) {
	body := map[string]any{"model": r.t.Model, "prompt": contract.CompletionPrompts[0], "max_tokens": r.limit("max_tokens")}
	for k, v := range extra {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	ex = r.do(ctx, http.MethodPost, contract.EndpointCompletions, b, nil)
	bad := func(format string, args ...any) Outcome {
		return withStatus(failed(ex.sentText(), ex.gotText(), format, args...), ex.status)
	}
	switch {
	case ex.status == 0:
		return ex, "", nil, bad("no answer"), true
	case notServed(ex.status):
		return ex, "", nil, withStatus(skip("not served: POST %s is answered HTTP %d", contract.EndpointCompletions, ex.status), ex.status), true
	case ex.status >= 400 && ex.status < 500:
		return ex, "", nil, withStatus(unsupported("HTTP %d: %s", ex.status, contract.Cut(strings.TrimSpace(string(ex.body)), 200)), ex.status), true
	case ex.status != http.StatusOK:
		return ex, "", nil, bad("HTTP %d, neither 200 nor a 4xx refusal", ex.status), true
	}
	var a struct {
		Object  string `json:"object"`
		Choices []struct {
			Text     *string         `json:"text"`
			Logprobs json.RawMessage `json:"logprobs"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(ex.body, &a); err != nil {
		return ex, "", nil, bad("the body is not a JSON object: %v", err), true
	}
	switch {
	case a.Object != "text_completion":
		return ex, "", nil, bad("object %q, not \"text_completion\"", nm(a.Object)), true
	case len(a.Choices) == 0 || a.Choices[0].Text == nil:
		return ex, "", nil, bad("no choice with a text"), true
	}
	return ex, *a.Choices[0].Text, a.Choices[0].Logprobs, Outcome{}, false
}

// completionsEcho judges completions.echo (the servers' suites: vLLM
// tests/entrypoints/openai/test_completion.py, test_echo_logprob_completion):
// echo true gives a text that begins with the prompt.
func (r *contractRun) completionsEcho(ctx context.Context) Outcome {
	ex, text, _, o, done := r.completionsAnswer(ctx, map[string]any{"echo": true})
	if done {
		return o
	}
	prompt := contract.CompletionPrompts[0]
	if !strings.HasPrefix(text, prompt) {
		return withStatus(failed(ex.sentText(), ex.gotText(), "echo: true, but the text %q does not begin with the prompt %q", contract.Cut(text, 80), prompt), ex.status)
	}
	return withStatus(pass("the text (%d chars) begins with the prompt %q", len(text), prompt), ex.status)
}

// legacyLogprobs is a completions choice's logprobs in the legacy shape.
type legacyLogprobs struct {
	Tokens        []string              `json:"tokens"`
	TokenLogprobs []*float64            `json:"token_logprobs"`
	TopLogprobs   []map[string]*float64 `json:"top_logprobs"`
	TextOffset    []int                 `json:"text_offset"`
}

// completionsLogprobs judges completions.logprobs (the servers' suites:
// vLLM tests/entrypoints/openai/test_completion.py,
// test_single_completion): logprobs N gives choices[0].logprobs in the
// legacy shape: tokens, token_logprobs (numbers <= 0), top_logprobs
// (objects of at most N+1 entries: vLLM adds the sampled token) and
// text_offset (non-decreasing), all of one length, at least one token,
// the tokens joined equal to the text.
func (r *contractRun) completionsLogprobs(ctx context.Context) Outcome {
	n := contract.CompletionLogprobs
	ex, text, raw, o, done := r.completionsAnswer(ctx, map[string]any{"logprobs": n})
	if done {
		return o
	}
	bad := func(format string, args ...any) Outcome {
		return withStatus(failed(ex.sentText(), ex.gotText(), format, args...), ex.status)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return bad("logprobs: %d, but choices[0].logprobs is %s", n, orAbsent(raw))
	}
	var lp legacyLogprobs
	if err := json.Unmarshal(raw, &lp); err != nil {
		return bad("choices[0].logprobs is not the legacy object (tokens, token_logprobs, top_logprobs, text_offset): %v", contract.Cut(err.Error(), 120))
	}
	k := len(lp.Tokens)
	switch {
	case k == 0:
		return bad("choices[0].logprobs has no tokens (the keys it has: %s)", keysOf(raw))
	case len(lp.TokenLogprobs) != k || len(lp.TopLogprobs) != k || len(lp.TextOffset) != k:
		return bad("choices[0].logprobs: %d tokens, %d token_logprobs, %d top_logprobs, %d text_offset: not one length", k, len(lp.TokenLogprobs), len(lp.TopLogprobs), len(lp.TextOffset))
	case strings.Join(lp.Tokens, "") != text:
		return bad("the %d tokens joined (%q) are not the text (%q)", k, contract.Cut(strings.Join(lp.Tokens, ""), 80), contract.Cut(text, 80))
	}
	for i := range k {
		switch {
		case lp.TokenLogprobs[i] == nil || *lp.TokenLogprobs[i] > 0:
			return bad("token_logprobs[%d] is %s, not a number <= 0", i, floatText(lp.TokenLogprobs[i]))
		case len(lp.TopLogprobs[i]) == 0 || len(lp.TopLogprobs[i]) > n+1:
			return bad("top_logprobs[%d] has %d entries for logprobs %d (1 to %d)", i, len(lp.TopLogprobs[i]), n, n+1)
		case i > 0 && lp.TextOffset[i] < lp.TextOffset[i-1]:
			return bad("text_offset[%d] %d < text_offset[%d] %d", i, lp.TextOffset[i], i-1, lp.TextOffset[i-1])
		}
		for tok, v := range lp.TopLogprobs[i] {
			if v == nil || *v > 0 {
				return bad("top_logprobs[%d][%q] is %s, not a number <= 0", i, nm(tok), floatText(v))
			}
		}
	}
	return withStatus(pass("%d tokens joined are the text, token_logprobs <= 0, top_logprobs of 1–%d entries, text_offset increasing", k, n+1), ex.status)
}

// orAbsent is a raw JSON value, or "absent" for none.
func orAbsent(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "absent"
	}
	return contract.Cut(string(raw), 80)
}

// keysOf lists the keys of a JSON object, or says it is not one.
func keysOf(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "not an object"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, nm(k))
	}
	if len(keys) == 0 {
		return "none"
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// floatText is a number, or "null".
func floatText(f *float64) string {
	if f == nil {
		return "null"
	}
	return strconv.FormatFloat(*f, 'g', 6, 64)
}
