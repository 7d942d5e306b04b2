package workloads

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/py"
)

// checksObject validates one checks object on its own (so a bad default is
// reported once, not per case) and returns it with
// tool_call_args_required_keys replaced by its raw JSON (written order).
func (p *parser) checksObject(where at, prefix string, v any, orderedRK json.RawMessage) (map[string]any, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := v.(map[string]any)
	if !ok {
		if !py.Truthy(v) {
			p.warn(where, prefix+"checks", "%s is not an object; no checks from here (the reference skips a falsy checks value)", describe(v))
			return nil, true
		}
		p.add(where, prefix+"checks", "want an object, got %s", describe(v))
		return nil, false
	}
	m = p.coerceCheckStrings(where, prefix, m)
	if _, has := m["tool_call_args_required_keys"]; has && orderedRK != nil {
		cp := make(map[string]any, len(m))
		for k, val := range m {
			cp[k] = val
		}
		cp["tool_call_args_required_keys"] = orderedRK
		m = cp
	}
	if _, err := checks.ParseSpec(m); err != nil {
		p.specErrors(where, prefix, err)
		return m, false
	}
	return m, true
}

// specErrors records each problem checks.ParseSpec reported, under its
// field (prefixed) when it is a *checks.SpecError.
func (p *parser) specErrors(where at, prefix string, err error) {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var se *checks.SpecError
		if errors.As(e, &se) {
			p.addErr(where, prefix+se.Field, se.Err)
		} else {
			p.addErr(where, prefix+"checks", e)
		}
	}
}

// coerceCheckStrings returns m with the non-string scalar items of
// required_regex, forbidden_regex and tool_call_names replaced by Python's
// str() of them (the reference matches re.search(str(pattern), ...) and
// compares str(name)), warning for each; m itself is not modified.
func (p *parser) coerceCheckStrings(where at, prefix string, m map[string]any) map[string]any {
	var cp map[string]any
	for _, key := range []string{"required_regex", "forbidden_regex", "tool_call_names"} {
		list, ok := m[key].([]any)
		if !ok {
			continue
		}
		var fixed []any
		for i, item := range list {
			if _, isStr := item.(string); isStr {
				continue
			}
			s, ok := py.Str(item)
			if !ok {
				continue // ParseSpec reports it
			}
			if fixed == nil {
				fixed = append([]any(nil), list...)
			}
			fixed[i] = s
			p.warn(where, fmt.Sprintf("%schecks.%s[%d]", prefix, key, i), "%s is not a string; used as %q (the reference applies str())", describe(item), s)
		}
		if fixed != nil {
			if cp == nil {
				cp = make(map[string]any, len(m))
				for k, v := range m {
					cp[k] = v
				}
			}
			cp[key] = fixed
		}
	}
	if cp == nil {
		return m
	}
	return cp
}

// caseChecks merges the case's checks v (orderedRK: its
// tool_call_args_required_keys as written) over the defaults' and parses
// the result; nil when no checks apply or either object is invalid.
func (p *parser) caseChecks(where at, v any, orderedRK json.RawMessage, d *caseDefaults) *checks.Spec {
	caseChecks, caseChecksOK := p.checksObject(where, "", v, orderedRK)
	if !caseChecksOK || !d.checksOK {
		return nil
	}
	merged := checks.MergeRaw(d.checks, caseChecks)
	if merged == nil {
		return nil
	}
	spec, err := checks.ParseSpec(merged)
	if err != nil {
		p.specErrors(where, "", err)
		return nil
	}
	return spec
}
