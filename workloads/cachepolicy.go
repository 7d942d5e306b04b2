package workloads

import (
	"fmt"
	"strings"
)

// CachePolicy is when benchserve asks the server to clear its prefix cache
// during a run (reference: defaults.cache_policy, the CLI's --cache-policy).
type CachePolicy string

const (
	// CachePreserve never clears the cache (the default).
	CachePreserve CachePolicy = "preserve"
	// CacheBeforeRun clears it once, before the first case.
	CacheBeforeRun CachePolicy = "before-run"
	// CacheBeforeCase clears it before every case and repetition.
	CacheBeforeCase CachePolicy = "before-case"
)

// cachePolicies are the policies in the order messages list them.
var cachePolicies = []CachePolicy{CachePreserve, CacheBeforeRun, CacheBeforeCase}

// NormalizeCachePolicy returns the canonical spelling of a cache policy
// (reference: _normalize_cache_policy): "" means CachePreserve; otherwise
// surrounding space is trimmed, case folded and underscores become hyphens,
// and the result must be one of the CachePolicy constants.
func NormalizeCachePolicy(s string) (CachePolicy, error) {
	if p, ok := normalizeCachePolicy(s); ok {
		return p, nil
	}
	return "", fmt.Errorf("workload: cache policy %q: must be one of: preserve, before-run, before-case", s)
}

// normalizeCachePolicy is NormalizeCachePolicy; ok is false for an
// unknown policy.
func normalizeCachePolicy(s string) (CachePolicy, bool) {
	if s == "" {
		return CachePreserve, true
	}
	p := CachePolicy(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-"))
	for _, known := range cachePolicies {
		if p == known {
			return p, true
		}
	}
	return "", false
}

// cachePolicy reads a non-null defaults.cache_policy; "" when it is invalid
// (reported).
func (p *parser) cachePolicy(v any) CachePolicy {
	s, isStr := v.(string)
	if !isStr {
		p.add(at{}, "defaults.cache_policy", "want a string, got %s", describe(v))
		return ""
	}
	norm, ok := normalizeCachePolicy(s)
	if !ok {
		p.add(at{}, "defaults.cache_policy", "want one of preserve, before-run, before-case (underscores and any case accepted), got %q", s)
	}
	return norm
}
