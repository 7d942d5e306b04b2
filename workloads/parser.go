package workloads

import (
	"fmt"
	"sort"
	"strings"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/internal/suggest"
)

// parser collects the problems and warnings of one workload document.
type parser struct {
	file     string
	problems []*FieldError
	warnings []string
}

// at names where a problem is: 0 for the document, else a case.
type at struct {
	index int // 1-based, 0 = not in a case
	id    string
}

// warn records an input accepted with the reference's meaning that is
// likely a mistake, formatted like a FieldError.
func (p *parser) warn(where at, field string, format string, args ...any) {
	fe := &FieldError{File: p.file, CaseID: where.id, CaseIndex: where.index, Field: field, Err: fmt.Errorf(format, args...)}
	p.warnings = append(p.warnings, fe.Error())
}

// add records a problem at where, in field.
func (p *parser) add(where at, field string, format string, args ...any) {
	p.addErr(where, field, fmt.Errorf(format, args...))
}

// addErr records err as a problem at where, in field.
func (p *parser) addErr(where at, field string, err error) {
	p.problems = append(p.problems, &FieldError{File: p.file, CaseID: where.id, CaseIndex: where.index, Field: field, Err: err})
}

// unknownKeys reports each key of obj not in known (sorted), with the
// hint for it, else a "did you mean", else the list of known keys.
func (p *parser) unknownKeys(where at, prefix string, obj map[string]any, known []string, hints map[string]string) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if i := sort.SearchStrings(known, k); i < len(known) && known[i] == k {
			continue
		}
		switch {
		case hints[k] != "":
			p.add(where, prefix+k, "unknown key (%s)", hints[k])
		case suggest.Closest(k, known) != "":
			p.add(where, prefix+k, "unknown key (did you mean %q?)", suggest.Closest(k, known))
		default:
			p.add(where, prefix+k, "unknown key (known keys: %s)", strings.Join(known, ", "))
		}
	}
}

// optObject reads an optional object; a falsy non-object counts as empty
// (with a warning), as in the reference. ok is false for any other value.
func (p *parser) optObject(where at, field string, v any) (map[string]any, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := v.(map[string]any)
	if !ok {
		if !py.Truthy(v) {
			p.warn(where, field, "%s is not an object; treated as empty (the reference skips a falsy %s)", describe(v), field)
			return nil, true
		}
		p.add(where, field, "want an object, got %s", describe(v))
	}
	return m, ok
}

// pyStrField reads an optional name or description the way the reference
// does, str(value or ""): strings as they are, a falsy value as "", and
// numbers and booleans as Python's str() of them, with a warning.
func (p *parser) pyStrField(where at, field string, v any) string {
	if !py.Truthy(v) {
		if _, isStr := v.(string); !isStr && v != nil {
			p.warn(where, field, "%s is falsy; treated as unset, as in the reference", describe(v))
		}
		return ""
	}
	s, ok := py.Str(v)
	if !ok {
		p.add(where, field, "want a string, got %s", describe(v))
		return ""
	}
	if _, isStr := v.(string); !isStr {
		p.warn(where, field, "%s is not a string; used as %q (the reference applies str())", describe(v), s)
	}
	return s
}
