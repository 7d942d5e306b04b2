package results

import "github.com/benchserve/benchserve/internal/py"

// PromptCache is the run summary's prefix-cache verification: the reuse
// the requests were built to have (their Requested.PrefixTokens, from a
// prefix, sessions or trace workload) beside what the server reported it
// served from its cache (Metrics.CachedTokens). Rates are fractions of the
// prompt tokens the server counted (usage.prompt_tokens, chat template
// included) over the same records. The summary omits it when no record
// was built to share a prefix and none reported cached tokens.
type PromptCache struct {
	// Requests counts the measured records; Built those of generated
	// requests (with Requested); Reported those whose server reported
	// cached tokens.
	Requests int `json:"requests"`
	Built    int `json:"built"`
	Reported int `json:"reported"`
	// ExpectedTokens is the sum of Requested.PrefixTokens: the tokens a
	// prefix cache holding every earlier request would serve.
	// ExpectedRate is ExpectedTokens over the Built records' prompt
	// tokens; null when they have none.
	ExpectedTokens int      `json:"expected_cached_tokens"`
	ExpectedRate   *float64 `json:"expected_hit_rate"`
	// CachedTokens is the sum of the Reported records' cached tokens and
	// HitRate that over their prompt tokens: the hit rate the server
	// showed; null, with HitRateReason, when no record reported.
	CachedTokens  int      `json:"cached_tokens"`
	HitRate       *float64 `json:"hit_rate"`
	HitRateReason string   `json:"hit_rate_reason,omitempty"`
	// BelowExpected counts the records that reported at least a cache
	// block (cacheBlockTokens) fewer cached tokens than they were built to
	// share: reuse the server did not make (an evicted or never-kept
	// prefix, another slot or replica). A shortfall under one block is the
	// server reusing whole blocks only, not a miss.
	BelowExpected int `json:"below_expected"`
}

// cacheBlockTokens is the KV-cache block a prefix cache reuses whole:
// vLLM's default --block-size and the fixture's block, 16 tokens. A
// 520-token shared prefix served as 512 cached tokens is full reuse; a
// server with larger blocks (vLLM --block-size 32) may still count as
// below expected by up to a block. Addition: the reference has no check.
const cacheBlockTokens = 16

// noCacheReport is PromptCache.HitRateReason when no record reported
// cached tokens.
const noCacheReport = "no response reported usage.prompt_tokens_details.cached_tokens (vLLM reports it with --enable-prompt-tokens-details; Ollama never does): the server's hit rate is unknown, see the /metrics cache counters"

// promptCache summarizes records (the measured ones) into the summary's
// PromptCache, nil when there is nothing to verify.
func promptCache(records []Record) *PromptCache {
	pc := PromptCache{Requests: len(records)}
	builtPrompt, reportedPrompt := 0, 0
	for _, r := range records {
		cached := r.Metrics.CachedTokens
		if r.Requested != nil {
			pc.Built++
			pc.ExpectedTokens += r.Requested.PrefixTokens
			builtPrompt += r.Metrics.PromptTokens
			if cached != nil && *cached <= r.Requested.PrefixTokens-cacheBlockTokens {
				pc.BelowExpected++
			}
		}
		if cached != nil {
			pc.Reported++
			pc.CachedTokens += *cached
			reportedPrompt += r.Metrics.PromptTokens
		}
	}
	if pc.ExpectedTokens == 0 && pc.Reported == 0 {
		return nil
	}
	pc.ExpectedRate = ratio(pc.ExpectedTokens, builtPrompt)
	pc.HitRate = ratio(pc.CachedTokens, reportedPrompt)
	if pc.Reported == 0 {
		pc.HitRateReason = noCacheReport
	} else if pc.HitRate == nil {
		pc.HitRateReason = "the responses that reported cached tokens reported no usage.prompt_tokens"
	}
	return &pc
}

// ratio is a/b rounded to 4 places, nil when b is 0.
func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	v := py.Round(float64(a)/float64(b), 4)
	return &v
}
