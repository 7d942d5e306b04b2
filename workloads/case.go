package workloads

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/internal/suggest"
	"github.com/benchserve/benchserve/results"
)

// caseSource is one element of the workload's "cases" list.
type caseSource struct {
	item  any // decoded
	index int // 0-based position
	// raw is the element's JSON text; orderedRK its
	// checks.tool_call_args_required_keys as written (key order).
	raw, orderedRK json.RawMessage
}

// buildCase resolves one case against the defaults d (see Parse for the
// rules). ok is false when the case has problems; a Case without ID means
// the element is not an object.
func (p *parser) buildCase(src caseSource, d *caseDefaults) (c Case, ok bool) {
	i := src.index
	where := at{index: i + 1}
	obj, isObj := src.item.(map[string]any)
	if !isObj {
		p.add(where, "", "want a case object, got %s", describe(src.item))
		return Case{}, false
	}
	before := len(p.problems)
	c = Case{Index: i, ID: fmt.Sprintf("case_%d", i+1)}
	if v := obj["id"]; v != nil {
		if s, ok := py.Str(v); !py.Truthy(v) {
			if _, isStr := v.(string); !isStr {
				p.warn(where, "id", "%s is falsy; the case is named %q, as in the reference", describe(v), c.ID)
			}
		} else if !ok {
			p.add(where, "id", "want a string, got %s", describe(v))
		} else {
			c.ID = s
			where.id = s
			if _, isStr := v.(string); !isStr {
				p.warn(where, "id", "%s is not a string; used as %q (the reference applies str())", describe(v), s)
			}
		}
	}
	p.unknownKeys(where, "", obj, caseKeys, map[string]string{
		"cache_policy": "cache_policy is only allowed in defaults",
		"name":         `cases have an "id", not a "name"`,
	})

	// Request file.
	var request map[string]any
	var requestRaw json.RawMessage
	if v, present := obj["request_path"]; present && v != nil {
		rp, ok := v.(string)
		if !ok {
			p.add(where, "request_path", "want a string, got %s", describe(v))
		} else {
			c.RequestPath = rp
			request, requestRaw = p.loadRequest(where, rp)
		}
	}
	var r scalarSet
	if request != nil {
		r = p.scalarsFromRequest(where, c.RequestPath, request)
	}

	// Messages: the case's key wins even when null, as item.get("messages", ...) does.
	if v, present := obj["messages"]; present {
		c.Messages = p.messages(where, "messages", "", v)
	} else if v, ok := request["messages"]; ok {
		c.Messages = p.messages(where, "request_path", c.RequestPath+": messages", v)
	} else {
		p.add(where, "messages", `missing; give "messages" or a request_path file that has them`)
	}

	cs := p.scalars(where, "", obj)
	c.MaxTokens = firstNonNil(cs.maxTokens, r.maxTokens, d.scalars.maxTokens)
	if c.MaxTokens != nil && *c.MaxTokens == 0 {
		// The reference sends `case.max_tokens or defaults.get("max_tokens", 256)`.
		c.MaxTokens = d.scalars.maxTokens
		if c.MaxTokens != nil && *c.MaxTokens == 0 {
			c.MaxTokens = nil
		}
	}
	c.EnableThinking = firstNonNil(cs.enableThinking, r.enableThinking, d.scalars.enableThinking)
	c.PolicyTimeoutMS = firstNonNil(cs.timeoutMS, r.timeoutMS, d.scalars.timeoutMS)
	c.Endpoint = cmp.Or(p.endpoint(where, "endpoint", obj["endpoint"]), d.endpoint, EndpointChat)
	c.ExtraBody, c.ExtraBodyJSON = p.caseExtraBody(where, obj, src.raw, request, requestRaw, d)

	// Protocol: a contract is judged by its check kind, not by checks.
	if v, present := obj["protocol"]; present && v != nil {
		c.Protocol = p.protocol(where, obj, v, c.ExtraBody)
		c.Tags = p.tags(where, obj)
		return c, len(p.problems) == before
	}

	c.Checks = p.caseChecks(where, obj["checks"], src.orderedRK, d)
	c.Tags = p.tags(where, obj)
	return c, len(p.problems) == before
}

// explicitID is the case's id as the reference reads it (str() of a
// truthy scalar), or "" when the case has none.
func explicitID(item any) string {
	if m, ok := item.(map[string]any); ok && py.Truthy(m["id"]) {
		if s, ok := py.Str(m["id"]); ok {
			return s
		}
	}
	return ""
}

// chatRoles are the roles of the OpenAI chat API's messages ("function"
// the deprecated one, "developer" the newest).
var chatRoles = []string{"system", "developer", "user", "assistant", "tool", "function"}

// messages reads a list of chat messages v. A message needs "role" (a
// string) and "content" (any value, null included). field names the key;
// for messages read from a request file, prefix names the file and field
// stays "request_path".
func (p *parser) messages(where at, field, prefix string, v any) []results.Message {
	name := func(sub string) (string, string) {
		if prefix == "" {
			return field + sub, ""
		}
		return field, prefix + sub + ": "
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		f, pre := name("")
		p.add(where, f, "%swant a non-empty list of message objects, got %s", pre, describe(v))
		return nil
	}
	out := make([]results.Message, 0, len(list))
	for i, item := range list {
		f, pre := name(fmt.Sprintf("[%d]", i))
		m, ok := item.(map[string]any)
		if !ok {
			p.add(where, f, `%swant an object with "role" and "content", got %s`, pre, describe(item))
			continue
		}
		var missing []string
		for _, k := range []string{"role", "content"} {
			if _, ok := m[k]; !ok {
				missing = append(missing, strconvQuote(k))
			}
		}
		if len(missing) > 0 {
			p.add(where, f, "%smissing %s", pre, strings.Join(missing, " and "))
			continue
		}
		role, ok := m["role"].(string)
		if !ok {
			f, pre := name(fmt.Sprintf("[%d].role", i))
			p.add(where, f, "%swant a string, got %s", pre, describe(m["role"]))
			continue
		}
		if !slices.Contains(chatRoles, role) {
			// A typo'd role ("usr") went to the server as it was: a real
			// server answers 400, the fixture answered 200.
			f, pre := name(fmt.Sprintf("[%d].role", i))
			hint := ""
			if s := suggest.Closest(role, chatRoles); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			p.add(where, f, "%sunknown role %q%s: want one of %s", pre, role, hint, strings.Join(chatRoles, ", "))
			continue
		}
		out = append(out, m)
	}
	return out
}

// tags reads the case's "tags": a string or a list, non-string scalars
// as Python's str() of them (with a warning); [] when absent.
func (p *parser) tags(where at, obj map[string]any) []string {
	v, present := obj["tags"]
	if !present {
		return []string{}
	}
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for i, item := range t {
			s, ok := py.Str(item)
			if !ok {
				p.add(where, fmt.Sprintf("tags[%d]", i), "want a string, got %s", describe(item))
				continue
			}
			if _, isStr := item.(string); !isStr {
				p.warn(where, fmt.Sprintf("tags[%d]", i), "%s is not a string; used as %q (the reference applies str())", describe(item), s)
			}
			out = append(out, s)
		}
		return out
	}
	p.add(where, "tags", "want a string or a list of strings, got %s", describe(v))
	return nil
}
