package runner

import "github.com/benchserve/benchserve/results"

// cachedTokens is the record's Metrics.CachedTokens: the prompt tokens the
// server reported served from its prefix cache, nil when it did not say.
func cachedTokens(u *results.Usage) *int {
	if u == nil || u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens == nil {
		return nil
	}
	n := *u.PromptTokensDetails.CachedTokens
	return &n
}
