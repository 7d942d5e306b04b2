package conformance

import (
	"context"
	"encoding/json"
	"net/http"
)

// cacheRepeat judges cache.repeat (the servers' suites: llama.cpp
// tools/server/tests/unit/test_completion.py, test_cache_vs_nocache;
// vLLM's prompt_tokens_details): the case's request is sent twice,
// non-streamed, and the second answer's usage.prompt_tokens_details.
// cached_tokens is more than 0 and at most prompt_tokens: the prompt the
// first request left in the server's prefix cache is reused. A server
// whose second answer has no cached_tokens field does not say what its
// cache served (Ollama never does, vLLM without
// --enable-prompt-tokens-details): a skip. An answer that is not 200
// fails.
func (r *contractRun) cacheRepeat(ctx context.Context) Outcome {
	var ex *exchange
	for range 2 {
		var err error
		if ex, err = r.post(ctx); err != nil {
			return failed("", "", "%v", err)
		}
		if ex.status != http.StatusOK {
			return withStatus(failed(ex.sentText(), ex.gotText(), "HTTP %d, not 200", ex.status), ex.status)
		}
	}
	var a struct {
		Usage *struct {
			PromptTokens  int `json:"prompt_tokens"`
			PromptDetails *struct {
				CachedTokens *int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(ex.body, &a); err != nil {
		return withStatus(failed(ex.sentText(), ex.gotText(), "the repeated request's answer is not a JSON object: %v", err), ex.status)
	}
	if a.Usage == nil || a.Usage.PromptDetails == nil || a.Usage.PromptDetails.CachedTokens == nil {
		return withStatus(skip("the server does not report usage.prompt_tokens_details.cached_tokens: what its prefix cache served is unknown"), ex.status)
	}
	cached, prompt := *a.Usage.PromptDetails.CachedTokens, a.Usage.PromptTokens
	switch {
	case cached <= 0:
		return withStatus(failed(ex.sentText(), ex.gotText(), "the repeated identical request reports cached_tokens %d of %d prompt tokens: its prefix was not reused", cached, prompt), ex.status)
	case cached > prompt:
		return withStatus(failed(ex.sentText(), ex.gotText(), "cached_tokens %d is more than prompt_tokens %d", cached, prompt), ex.status)
	}
	return withStatus(pass("the repeated identical request reports %d of %d prompt tokens cached", cached, prompt), ex.status)
}
