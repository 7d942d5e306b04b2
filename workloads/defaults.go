package workloads

import (
	"encoding/json"
	"fmt"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/results"
)

// caseDefaults is what the workload's "defaults" object gives every case.
type caseDefaults struct {
	scalars scalarSet
	// extra is defaults.extra_body; extraRaw its JSON text as written
	// (key order).
	extra    map[string]any
	extraRaw json.RawMessage
	// checks is defaults.checks, validated; checksOK is false when it is
	// invalid (reported once), and then no case gets checks.
	checks   map[string]any
	checksOK bool
	// endpoint is defaults.endpoint, "" when unset.
	endpoint Endpoint
}

// parseDefaults reads the "defaults" object v (raw: its JSON text;
// orderedRK: its checks.tool_call_args_required_keys as written) into w's
// Defaults, DefaultsJSON, CachePolicy and SLO, and returns what it gives
// each case.
func (p *parser) parseDefaults(w *Workload, v any, raw, orderedRK json.RawMessage) caseDefaults {
	defaults := map[string]any{}
	w.DefaultsJSON = json.RawMessage("{}")
	switch d := v.(type) {
	case nil:
	case map[string]any:
		defaults = d
		if len(d) > 0 {
			w.DefaultsJSON = raw
		}
	default:
		if !py.Truthy(d) {
			p.warn(at{}, "defaults", "%s is not an object; treated as {} (as the reference's `defaults or {}`)", describe(d))
		} else {
			p.add(at{}, "defaults", "want an object, got %s", describe(d))
		}
	}
	w.Defaults = defaults
	p.unknownKeys(at{}, "defaults.", defaults, defaultsKeys, nil)
	var d caseDefaults
	d.scalars = p.scalars(at{}, "defaults.", defaults)
	if v, ok := defaults["cache_policy"]; ok && v != nil {
		w.CachePolicy = p.cachePolicy(v)
	}
	w.SLO = p.slo(defaults["slo"])
	d.endpoint = p.endpoint(at{}, "defaults.endpoint", defaults["endpoint"])
	d.extra, _ = p.optObject(at{}, "defaults.extra_body", defaults["extra_body"])
	p.checkExtraBody(at{}, "defaults.extra_body", d.extra)
	d.extraRaw = rawMember(raw, "extra_body")
	d.checks, d.checksOK = p.checksObject(at{}, "defaults.", defaults["checks"], orderedRK)
	return d
}

// slo parses defaults.slo, a list of threshold strings; nil when unset.
func (p *parser) slo(v any) []results.Threshold {
	var out []results.Threshold
	switch v := v.(type) {
	case nil:
	case []any:
		for i, item := range v {
			field := fmt.Sprintf("defaults.slo[%d]", i)
			expr, isStr := item.(string)
			if !isStr {
				p.add(at{}, field, "want a threshold string like \"ttft_p95_ms <= 500\", got %s", describe(item))
				continue
			}
			th, err := results.ParseThreshold(expr)
			if err != nil {
				p.add(at{}, field, "%v", err)
				continue
			}
			out = append(out, th)
		}
	default:
		p.add(at{}, "defaults.slo", "want a list of threshold strings, got %s", describe(v))
	}
	return out
}
