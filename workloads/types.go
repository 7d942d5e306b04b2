package workloads

import (
	"encoding/json"
	"path/filepath"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/results"
)

// Workload is a loaded, validated workload file (reference: Workload).
type Workload struct {
	// Name is the "name" field, or the file name without extension.
	Name string
	// Description is the "description" field, or "".
	Description string
	// Path is the path the workload was loaded from, as given.
	Path string
	// Defaults is the raw "defaults" object ({} when absent or falsy).
	Defaults map[string]any
	// DefaultsJSON is the "defaults" object's JSON text as written (file
	// key order, which the reference keeps), "{}" when absent or falsy;
	// echoed into results payloads.
	DefaultsJSON json.RawMessage
	// CachePolicy is defaults.cache_policy normalized (see
	// NormalizeCachePolicy), or "" when the workload does not set one.
	CachePolicy CachePolicy
	// SLO are the run-level thresholds of defaults.slo (a benchserve
	// addition the reference ignores), e.g. "ttft_p95_ms <= 500", parsed
	// at load (results.ParseThreshold; Expr is the text as written).
	SLO []results.Threshold
	// Cases are the cases in file order; never empty.
	Cases []Case
	// Warnings are the inputs accepted with the reference's meaning that
	// are likely mistakes (a numeric id, max_tokens 0, "checks": [], a
	// non-string pattern, ...), each naming file, case and field like a
	// FieldError. Callers should show them before a run.
	Warnings []string
}

// Case is one workload case after defaults and request files are applied
// (reference: WorkloadCase).
type Case struct {
	// ID is the case "id", or "case_N" with N its 1-based position.
	ID string
	// Index is the case's 0-based position in the file.
	Index int
	// Messages is the chat history sent, never empty.
	Messages []results.Message
	// RequestPath is the request_path as written, or "".
	RequestPath string
	// MaxTokens is the resolved max_tokens (case > request file >
	// defaults), nil when none of them set it. A falsy value (0) resolved
	// from the case or request file falls back to the defaults' value, as
	// the reference's `case.max_tokens or defaults.get("max_tokens", 256)`.
	MaxTokens *int
	// EnableThinking is the resolved enable_thinking, nil when unset.
	EnableThinking *bool
	// ExtraBody is the request file's non-reserved keys overlaid with the
	// case's (or else the defaults') extra_body; nil when empty.
	ExtraBody map[string]any
	// ExtraBodyJSON is ExtraBody as a JSON object in the reference's key
	// order (the request file's keys as written, then the overlay's new
	// keys, as dict.update does); nil when ExtraBody is nil.
	ExtraBodyJSON json.RawMessage
	// PolicyTimeoutMS is the resolved policy_timeout_ms, nil when unset.
	// A value <= 0 is kept: it sets no timeout and records within_timeout
	// false, as in the reference.
	PolicyTimeoutMS *float64
	// Checks is the merged quality-check spec, nil when no checks apply.
	Checks *checks.Spec
	// Tags are the case tags, in file order.
	Tags []string
	// Endpoint is the API the case's request goes to: the case's
	// "endpoint", else the defaults', else EndpointChat.
	Endpoint Endpoint
	// Protocol is the case's "protocol" object: a contract of the
	// OpenAI protocol, judged by its check kind instead of Checks (which
	// is then nil); nil for an ordinary case.
	Protocol *Protocol
}

// EffectiveMaxTokens returns the max_tokens the request sends: the resolved
// value, or results.DefaultMaxTokens.
func (c Case) EffectiveMaxTokens() int {
	if c.MaxTokens != nil && *c.MaxTokens > 0 {
		return *c.MaxTokens
	}
	return results.DefaultMaxTokens
}

// InputFiles returns every file the workload was read from: the workload
// file and each distinct request file of its cases, resolved as the loader
// resolved them (a request file's leading ~ expanded, relative to the
// workload file). An
// output must never be one of them.
func (w *Workload) InputFiles() []string {
	out := []string{w.Path}
	seen := map[string]bool{out[0]: true}
	for _, c := range w.Cases {
		if c.RequestPath == "" {
			continue
		}
		full := paths.ExpandHome(c.RequestPath)
		if !filepath.IsAbs(full) {
			full = filepath.Join(filepath.Dir(out[0]), full)
		}
		if !seen[full] {
			seen[full] = true
			out = append(out, full)
		}
	}
	return out
}
