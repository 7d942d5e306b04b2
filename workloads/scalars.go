package workloads

import (
	"encoding/json"
	"math"
	"time"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/results"
)

// scalarSet holds the resolved scalar values of one source (defaults, request file or case).
type scalarSet struct {
	maxTokens      *int
	enableThinking *bool
	timeoutMS      *float64
}

// scalars reads max_tokens, enable_thinking and policy_timeout_ms of obj
// (fields named with prefix); a falsy max_tokens resolves to 0, which
// buildCase turns into the defaults' value, as the reference does.
func (p *parser) scalars(where at, prefix string, obj map[string]any) scalarSet {
	var s scalarSet
	if v := obj["max_tokens"]; v != nil {
		if n, ok := asPositiveInt(v); ok {
			s.maxTokens = &n
		} else if !py.Truthy(v) {
			zero := 0
			s.maxTokens = &zero
			if prefix == "defaults." {
				p.warn(where, prefix+"max_tokens", "%s is falsy; treated as unset, so %d is sent (the reference sends max_tokens 0 here)", describe(v), results.DefaultMaxTokens)
			} else {
				p.warn(where, prefix+"max_tokens", "%s is falsy; defaults.max_tokens (else %d) is sent, as in the reference", describe(v), results.DefaultMaxTokens)
			}
		} else {
			p.add(where, prefix+"max_tokens", "want a positive integer, got %s", describe(v))
		}
	}
	if v := obj["enable_thinking"]; v != nil {
		if b, ok := v.(bool); ok {
			s.enableThinking = &b
		} else {
			p.add(where, prefix+"enable_thinking", "want true or false, got %s", describe(v))
		}
	}
	if v := obj["policy_timeout_ms"]; v != nil {
		if f, ok := asNumber(v); ok && f > 0 && (f < 1 || f > maxTimeoutMS) {
			// Below 1 ms or beyond what a Go duration holds, a timeout
			// silently meant "none": say so instead.
			p.add(where, prefix+"policy_timeout_ms", "%s is out of range: want 1 to %.0f milliseconds (or 0 for no timeout)", describe(v), maxTimeoutMS)
		} else if ok && f > 0 {
			s.timeoutMS = &f
		} else if ok {
			s.timeoutMS = &f
			p.warn(where, prefix+"policy_timeout_ms", "%s sets no timeout and records within_timeout false, as in the reference", describe(v))
		} else {
			p.add(where, prefix+"policy_timeout_ms", "want a number of milliseconds, got %s", describe(v))
		}
	}
	return s
}

// maxTimeoutMS is the longest policy timeout a Go duration holds, in ms
// (about 292 years).
const maxTimeoutMS = float64(math.MaxInt64 / int64(time.Millisecond))

// firstNonNil returns the first non-nil of vals, or nil.
func firstNonNil[T any](vals ...*T) *T {
	for _, v := range vals {
		if v != nil {
			return v
		}
	}
	return nil
}

// asPositiveInt returns a JSON integer in 1..2^31-1.
func asPositiveInt(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil || i <= 0 || i > 1<<31-1 {
		return 0, false
	}
	return int(i), true
}

// asNumber returns a JSON number as a float64.
func asNumber(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}
