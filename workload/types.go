package workload

import (
	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/openai"
)

// DefaultMaxTokens is the max_tokens sent when neither the case, its request
// file nor the workload defaults set one (reference: _resolve_max_tokens).
const DefaultMaxTokens = 256

// Workload is a loaded, validated workload file (reference: Workload).
type Workload struct {
	// Name is the "name" field, or the file name without extension.
	Name string
	// Description is the "description" field, or "".
	Description string
	// Path is the path the workload was loaded from, as given.
	Path string
	// Defaults is the raw "defaults" object, echoed into results payloads.
	Defaults map[string]any
	// CachePolicy is defaults.cache_policy normalized (see
	// NormalizeCachePolicy), or "" when the workload does not set one.
	CachePolicy string
	// SLO are run-level thresholds from defaults.slo (a benchserve
	// addition the reference ignores), e.g. "ttft_p95_ms <= 500", each
	// already checked with stats.ParseThreshold.
	SLO []string
	// Cases are the cases in file order; never empty.
	Cases []Case
}

// Case is one workload case after defaults and request files are applied
// (reference: WorkloadCase).
type Case struct {
	// ID is the case "id", or "case_N" with N its 1-based position.
	ID string
	// Index is the case's 0-based position in the file.
	Index int
	// Messages is the chat history sent, never empty.
	Messages []openai.Message
	// RequestPath is the request_path as written, or "".
	RequestPath string
	// MaxTokens is the resolved max_tokens (case > request file >
	// defaults), nil when none of them set it.
	MaxTokens *int
	// EnableThinking is the resolved enable_thinking, nil when unset.
	EnableThinking *bool
	// ExtraBody is the request file's non-reserved keys overlaid with the
	// case's (or else the defaults') extra_body; nil when empty.
	ExtraBody map[string]any
	// PolicyTimeoutMS is the resolved policy_timeout_ms, nil when unset.
	PolicyTimeoutMS *float64
	// Checks is the merged quality-check spec, nil when no checks apply.
	Checks *checks.Spec
	// Tags are the case tags, in file order.
	Tags []string
}

// EffectiveMaxTokens returns the max_tokens the request sends: the resolved
// value, or DefaultMaxTokens.
func (c Case) EffectiveMaxTokens() int {
	if c.MaxTokens != nil && *c.MaxTokens > 0 {
		return *c.MaxTokens
	}
	return DefaultMaxTokens
}
