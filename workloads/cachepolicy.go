package workloads

import (
	"fmt"
	"strings"
)

// NormalizeCachePolicy returns the canonical spelling of a cache policy
// (reference: _normalize_cache_policy): "" means "preserve"; otherwise
// surrounding space is trimmed, case folded and underscores become hyphens,
// and the result must be "preserve", "before-run" or "before-case".
func NormalizeCachePolicy(s string) (string, error) {
	if p, ok := normalizeCachePolicy(s); ok {
		return p, nil
	}
	return "", fmt.Errorf("workload: cache policy %q: must be one of: preserve, before-run, before-case", s)
}

// normalizeCachePolicy is NormalizeCachePolicy; ok is false for an
// unknown policy.
func normalizeCachePolicy(s string) (string, bool) {
	if s == "" {
		return "preserve", true
	}
	p := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	switch p {
	case "preserve", "before-run", "before-case":
		return p, true
	}
	return "", false
}

// cachePolicy reads a non-null defaults.cache_policy; "" when it is invalid
// (reported).
func (p *parser) cachePolicy(v any) string {
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
