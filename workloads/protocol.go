package workloads

import (
	"errors"

	"github.com/benchserve/benchserve/internal/conformance"
)

// protocol parses a case's "protocol" object (conformance.ParseSpec),
// reporting each problem with its field. A protocol case is judged by its
// check kind alone: a "checks" object beside it is an error, and the
// defaults' checks do not apply to it. extra is the case's resolved extra
// body, which must hold what the check kind needs (Spec.CheckRequest).
func (p *parser) protocol(where at, obj map[string]any, v any, extra map[string]any) *conformance.Spec {
	m, ok := v.(map[string]any)
	if !ok {
		p.add(where, "protocol", "want an object with level and check, got %s", describe(v))
		return nil
	}
	if c, has := obj["checks"]; has && c != nil {
		p.add(where, "checks", "a protocol case is judged by protocol.check; remove checks (or make it a case of its own)")
	}
	spec, err := conformance.ParseSpec(m)
	if err != nil {
		p.specErrors(where, "", err)
		return nil
	}
	if errs := spec.CheckRequest(extra); len(errs) > 0 {
		p.specErrors(where, "", errors.Join(errs...))
		return nil
	}
	return spec
}
