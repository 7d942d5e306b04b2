package workloads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/results"
)

// Known keys of each object level; anything else is an error.
var (
	topKeys      = []string{"cases", "defaults", "description", "generator", "name"}
	defaultsKeys = []string{"cache_policy", "checks", "enable_thinking", "extra_body", "max_tokens", "policy_timeout_ms", "slo"}
	caseKeys     = []string{"checks", "enable_thinking", "extra_body", "id", "max_tokens", "messages", "policy_timeout_ms", "protocol", "request_path", "tags"}
)

// reservedRequestKeys are the request-file keys benchserve sets itself;
// every other key of a request file is sent as extra body (reference:
// _request_extra_body).
var reservedRequestKeys = map[string]bool{
	"model": true, "messages": true, "max_tokens": true, "stream": true, "stream_options": true, "enable_thinking": true,
}

// reservedExtraHint says, for each key benchserve sets itself, where to
// set it instead. In extra_body these keys are errors: the reference
// would send them over its own (a "stream": false breaks the measurement,
// a "max_tokens" there is sent but not recorded).
var reservedExtraHint = map[string]string{
	"model":           "the model comes from --model or BENCHSERVE_MODEL",
	"messages":        "use the case's messages",
	"max_tokens":      "use max_tokens",
	"enable_thinking": "use enable_thinking",
	"stream":          "benchserve always streams",
	"stream_options":  "benchserve always asks for usage",
}

// checkExtraBody reports the keys of an extra_body that benchserve sets
// itself, in key order.
func (p *parser) checkExtraBody(where at, field string, extra map[string]any) {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if reservedRequestKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		p.add(where, field+"."+k, "set by benchserve, not by extra_body: %s", reservedExtraHint[k])
	}
}

// Load reads and parses the workload file at path (reference:
// load_workload); a leading ~ is expanded. Read errors are returned as
// "workload: load PATH: ..." wrapping the *fs.PathError; a file larger than
// MaxFileSize (or an endless one such as /dev/zero) is refused; problems in
// the content as a *LoadError (see Parse).
func Load(path string) (*Workload, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, fmt.Errorf("workload: load %s: %w", path, err)
	}
	return Parse(data, path)
}

// Parse parses workload JSON (reference: load_workload and
// _build_workload_case). path is used in error messages, for the default
// name (the file name without extension) and to resolve relative
// request_path values (against path's directory, after ~ expansion); it may
// be "" for in-memory workloads without request files.
//
// Format: an object with "name" (string), "description" (string),
// "defaults" (object: max_tokens, enable_thinking, policy_timeout_ms,
// checks, extra_body, cache_policy, slo) and "cases" (non-empty list of objects:
// id, messages, request_path, max_tokens, enable_thinking, extra_body,
// policy_timeout_ms, checks, tags). JSON null means "not set" everywhere
// except in messages (content may be null) and tags (null is an error, as
// in the reference). Resolution per case:
//   - id: the "id" string, or "case_N" with N the 1-based position; a
//     number or boolean is str() of it (5 → "5", true → "True") and a
//     falsy one (0, false) gives "case_N", as in the reference.
//   - messages: the case's "messages" if the key is present, else the
//     request file's; a non-empty list of objects that have "role" (a
//     string) and "content" keys.
//   - max_tokens (integer > 0), enable_thinking (boolean),
//     policy_timeout_ms (number): the first non-null of case, request
//     file, defaults. A falsy max_tokens (0, false) resolved there means
//     the defaults' max_tokens, else 256 (the reference's `case.max_tokens
//     or defaults.get("max_tokens", 256)`; a falsy defaults.max_tokens,
//     which the reference sends as 0, is treated as unset). A
//     policy_timeout_ms <= 0 is kept: no timeout, within_timeout false.
//   - extra_body: the request file's keys except model, messages,
//     max_tokens, stream, stream_options and enable_thinking, overlaid
//     with the case's extra_body when the case has that key (even null),
//     else with defaults.extra_body; nil when empty. Note that a request
//     file's policy_timeout_ms is both a scalar source and extra body, as
//     in the reference.
//   - checks: checks.MergeRaw(defaults.checks, case.checks), then
//     checks.ParseSpec; tool_call_args_required_keys keeps its written
//     order (it is passed to ParseSpec as json.RawMessage).
//   - protocol (a benchserve addition): an object making the case a
//     contract of the OpenAI protocol, parsed into a Protocol (level,
//     check, stream, endpoint, body, raw_body, compare, cancel_after);
//     such a case has no checks (a "checks" key is an error,
//     defaults.checks do not apply) and is judged by its check kind
//     (benchtest.RunConformance, benchserve conformance).
//   - tags: a string or a list; numbers, booleans and null in the list are
//     str() of them (1 → "1", null → "None"), as in the reference; lists
//     and objects in it are an error.
//   - name, description: str() of a number or boolean; a falsy value is
//     unset. "defaults", "checks" and "extra_body" given as a falsy
//     non-object ([], 0, false, "") count as empty, as in the reference.
//   - checks.required_regex, forbidden_regex, tool_call_names: numbers,
//     booleans and null in the list are str() of them. Given as one string
//     they are refused: the reference iterates the string character by
//     character.
//
// Every input accepted only because the reference accepts it is reported in
// Workload.Warnings (file, case and field), so the likely mistake stays
// visible. Invalid UTF-8 is refused with its byte offset.
//
// Stricter than the reference: unknown keys at the top level, in defaults
// and in cases are errors (with a "did you mean" hint), wrongly typed
// values are errors, and duplicate case ids are errors (they name
// subtests). Parse reports every problem it finds, not only the first, as a
// *LoadError of *FieldError; invalid JSON is one problem with its line and
// column. Numbers inside Defaults, Messages and ExtraBody are json.Number,
// which marshals back unchanged.
func Parse(data []byte, path string) (*Workload, error) {
	p := &parser{file: path}
	w := p.parse(data)
	if len(p.problems) > 0 {
		return nil, &LoadError{File: path, Problems: p.problems}
	}
	return w, nil
}

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

// Select returns the cases that have at least one of tags, in file order;
// with no tags it returns all cases.
func (w *Workload) Select(tags []string) []Case {
	if len(tags) == 0 {
		return w.Cases
	}
	want := make(map[string]bool, len(tags))
	for _, t := range tags {
		want[t] = true
	}
	var out []Case
	for _, c := range w.Cases {
		for _, t := range c.Tags {
			if want[t] {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

type parser struct {
	file     string
	problems []*FieldError
	warnings []string
}

// warn records an input accepted with the reference's meaning that is
// likely a mistake, formatted like a FieldError.
func (p *parser) warn(where at, field string, format string, args ...any) {
	fe := &FieldError{File: p.file, CaseID: where.id, CaseIndex: where.index, Field: field, Err: fmt.Errorf(format, args...)}
	p.warnings = append(p.warnings, fe.Error())
}

// at names where a problem is: 0 for the document, else a case.
type at struct {
	index int // 1-based, 0 = not in a case
	id    string
}

func (p *parser) add(where at, field string, format string, args ...any) {
	p.addErr(where, field, fmt.Errorf(format, args...))
}

func (p *parser) addErr(where at, field string, err error) {
	p.problems = append(p.problems, &FieldError{File: p.file, CaseID: where.id, CaseIndex: where.index, Field: field, Err: err})
}

func (p *parser) parse(data []byte) *Workload {
	if off := invalidUTF8(data); off >= 0 {
		p.add(at{}, "", "invalid UTF-8 at byte offset %d (workload files are UTF-8; the reference refuses this file too)", off)
		return nil
	}
	root, err := decodeJSON(data)
	if err != nil {
		p.addErr(at{}, "", err)
		return nil
	}
	top, ok := root.(map[string]any)
	if !ok {
		p.add(at{}, "", "want a JSON object at the top level, got %s", describe(root))
		return nil
	}
	p.reportDuplicateKeys(data)
	p.unknownKeys(at{}, "", top, topKeys, nil)
	ordered := orderedRequiredKeys(data)

	_, rawTop, _ := objectMembers(data)

	w := &Workload{Path: p.file}
	w.Name = p.pyStrField(at{}, "name", top["name"])
	if w.Name == "" && p.file != "" {
		base := filepath.Base(p.file)
		w.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	w.Description = p.pyStrField(at{}, "description", top["description"])

	defaults := map[string]any{}
	w.DefaultsJSON = json.RawMessage("{}")
	switch d := top["defaults"].(type) {
	case nil:
	case map[string]any:
		defaults = d
		if len(d) > 0 {
			w.DefaultsJSON = rawTop["defaults"]
		}
	default:
		if pyFalsy(d) {
			p.warn(at{}, "defaults", "%s is not an object; treated as {} (as the reference's `defaults or {}`)", describe(d))
		} else {
			p.add(at{}, "defaults", "want an object, got %s", describe(d))
		}
	}
	w.Defaults = defaults
	p.unknownKeys(at{}, "defaults.", defaults, defaultsKeys, nil)
	d := p.scalars(at{}, "defaults.", defaults)
	if v, ok := defaults["cache_policy"]; ok && v != nil {
		if s, isStr := v.(string); !isStr {
			p.add(at{}, "defaults.cache_policy", "want a string, got %s", describe(v))
		} else if norm, ok := normalizeCachePolicy(s); !ok {
			p.add(at{}, "defaults.cache_policy", "want one of preserve, before-run, before-case (underscores and any case accepted), got %q", s)
		} else {
			w.CachePolicy = norm
		}
	}
	switch v := defaults["slo"].(type) {
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
			w.SLO = append(w.SLO, th)
		}
	default:
		p.add(at{}, "defaults.slo", "want a list of threshold strings, got %s", describe(v))
	}
	defaultExtra, _ := p.optObject(at{}, "defaults.extra_body", defaults["extra_body"])
	p.checkExtraBody(at{}, "defaults.extra_body", defaultExtra)
	defaultExtraRaw := rawMember(rawTop["defaults"], "extra_body")
	defaultChecks, defaultChecksOK := p.checksObject(at{}, "defaults.", defaults["checks"], ordered.defaults)

	w.Generator = p.parseGenerator(top["generator"])
	if _, present := top["cases"]; !present && w.Generator != nil {
		w.Warnings = p.warnings // a generator alone: its cases are made by the engine
		return w
	}
	rawCases, ok := top["cases"].([]any)
	if !ok || len(rawCases) == 0 {
		if v, present := top["cases"]; present {
			p.add(at{}, "cases", "want a non-empty list of case objects, got %s", describe(v))
		} else {
			p.add(at{}, "cases", "missing; want a non-empty list of case objects")
		}
		return w
	}
	firstByID := map[string]int{}
	rawCaseList := rawElems(rawTop["cases"])
	for i, item := range rawCases {
		var orderedRK, rawCase json.RawMessage
		if i < len(ordered.cases) {
			orderedRK = ordered.cases[i]
		}
		if i < len(rawCaseList) {
			rawCase = rawCaseList[i]
		}
		c, ok := p.buildCase(item, i, d, defaultExtra, defaultExtraRaw, defaultChecks, defaultChecksOK, orderedRK, rawCase)
		if c.ID == "" { // not an object: no id to compare
			continue
		}
		where := at{index: i + 1, id: explicitID(item)}
		if first, dup := firstByID[c.ID]; dup {
			if where.id != "" {
				p.add(where, "id", "duplicate case id %q (case #%d has it too)", c.ID, first)
			} else {
				p.add(where, "id", "generated id %q is already used by case #%d; give this case an id", c.ID, first)
			}
			continue
		}
		firstByID[c.ID] = i + 1
		if ok {
			w.Cases = append(w.Cases, c)
		}
	}
	w.Warnings = p.warnings
	return w
}

// resolved scalar values of one source (defaults, request file or case).
type scalarSet struct {
	maxTokens      *int
	enableThinking *bool
	timeoutMS      *float64
}

func (p *parser) scalars(where at, prefix string, obj map[string]any) scalarSet {
	var s scalarSet
	if v := obj["max_tokens"]; v != nil {
		if n, ok := asPositiveInt(v); ok {
			s.maxTokens = &n
		} else if pyFalsy(v) {
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

func (p *parser) buildCase(item any, i int, d scalarSet, defaultExtra map[string]any, defaultExtraRaw json.RawMessage, defaultChecks map[string]any, defaultChecksOK bool, orderedRK, rawCase json.RawMessage) (Case, bool) {
	where := at{index: i + 1}
	obj, ok := item.(map[string]any)
	if !ok {
		p.add(where, "", "want a case object, got %s", describe(item))
		return Case{}, false
	}
	before := len(p.problems)
	c := Case{Index: i, ID: fmt.Sprintf("case_%d", i+1)}
	if v := obj["id"]; v != nil {
		if s, ok := pyStr(v); pyFalsy(v) {
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
	c.MaxTokens = firstNonNil(cs.maxTokens, r.maxTokens, d.maxTokens)
	if c.MaxTokens != nil && *c.MaxTokens == 0 {
		// The reference sends `case.max_tokens or defaults.get("max_tokens", 256)`.
		c.MaxTokens = d.maxTokens
		if c.MaxTokens != nil && *c.MaxTokens == 0 {
			c.MaxTokens = nil
		}
	}
	c.EnableThinking = firstNonNil(cs.enableThinking, r.enableThinking, d.enableThinking)
	c.PolicyTimeoutMS = firstNonNil(cs.timeoutMS, r.timeoutMS, d.timeoutMS)

	// Extra body.
	extra := map[string]any{}
	for k, v := range request {
		if !reservedRequestKeys[k] {
			extra[k] = v
		}
	}
	overlay, overlayRaw := defaultExtra, defaultExtraRaw
	if v, present := obj["extra_body"]; present {
		overlay, _ = p.optObject(where, "extra_body", v)
		overlayRaw = rawMember(rawCase, "extra_body")
		p.checkExtraBody(where, "extra_body", overlay)
	}
	for k, v := range overlay {
		extra[k] = v
	}
	if len(extra) > 0 {
		c.ExtraBody = extra
		c.ExtraBodyJSON = orderedExtraBody(requestRaw, overlayRaw, len(overlay) > 0)
	}

	// Protocol: a contract is judged by its check kind, not by checks.
	if v, present := obj["protocol"]; present && v != nil {
		c.Protocol = p.protocol(where, obj, v, c.ExtraBody)
		c.Tags = p.tags(where, obj)
		return c, len(p.problems) == before
	}

	// Checks.
	caseChecks, caseChecksOK := p.checksObject(where, "", obj["checks"], orderedRK)
	if caseChecksOK && defaultChecksOK {
		if merged := checks.MergeRaw(defaultChecks, caseChecks); merged != nil {
			spec, err := checks.ParseSpec(merged)
			if err != nil {
				p.specErrors(where, "", err)
			} else {
				c.Checks = spec
			}
		}
	}

	c.Tags = p.tags(where, obj)
	return c, len(p.problems) == before
}

func (p *parser) scalarsFromRequest(where at, rp string, request map[string]any) scalarSet {
	// Reuse scalars, then prefix the field with the request file.
	n := len(p.problems)
	s := p.scalars(where, rp+": ", request)
	for _, fe := range p.problems[n:] {
		fe.Err = fmt.Errorf("%s: %w", fe.Field, fe.Err)
		fe.Field = "request_path"
	}
	return s
}

func (p *parser) loadRequest(where at, rp string) (map[string]any, json.RawMessage) {
	full := paths.ExpandHome(rp)
	if !filepath.IsAbs(full) {
		full = filepath.Join(filepath.Dir(p.file), full)
	}
	if fi, err := os.Stat(full); err == nil && !fi.Mode().IsRegular() {
		p.add(where, "request_path", "%s: not a regular file", full)
		return nil, nil
	}
	data, err := readLimited(full)
	if err != nil {
		p.addErr(where, "request_path", err)
		return nil, nil
	}
	if off := invalidUTF8(data); off >= 0 {
		p.add(where, "request_path", "%s: invalid UTF-8 at byte offset %d (the reference refuses this file too)", rp, off)
		return nil, nil
	}
	v, err := decodeJSON(data)
	if err != nil {
		p.add(where, "request_path", "%s: %w", rp, err)
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.add(where, "request_path", "%s: want a JSON object, got %s", rp, describe(v))
		return nil, nil
	}
	return obj, data
}

// orderedExtraBody builds the case's extra body as JSON in the reference's
// key order: the request file's non-reserved keys as written, updated by
// the overlay object (existing keys keep their place, new keys follow in
// the overlay's order), as _request_extra_body and dict.update do.
func orderedExtraBody(requestRaw, overlayRaw json.RawMessage, useOverlay bool) json.RawMessage {
	var keys []string
	vals := map[string]json.RawMessage{}
	if rk, rv, ok := objectMembers(requestRaw); ok {
		for _, k := range rk {
			if !reservedRequestKeys[k] {
				keys = append(keys, k)
				vals[k] = rv[k]
			}
		}
	}
	if ok := useOverlay; ok {
		if ok, ov, isObj := objectMembers(overlayRaw); isObj {
			for _, k := range ok {
				if _, seen := vals[k]; !seen {
					keys = append(keys, k)
				}
				vals[k] = ov[k]
			}
		}
	}
	return orderedObject(keys, vals)
}

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
		if _, ok := m["role"].(string); !ok {
			f, pre := name(fmt.Sprintf("[%d].role", i))
			p.add(where, f, "%swant a string, got %s", pre, describe(m["role"]))
			continue
		}
		out = append(out, m)
	}
	return out
}

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
			s, ok := pyStr(item)
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

// checksObject validates one checks object on its own (so a bad default is
// reported once, not per case) and returns it with
// tool_call_args_required_keys replaced by its raw JSON (written order).
func (p *parser) checksObject(where at, prefix string, v any, orderedRK json.RawMessage) (map[string]any, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := v.(map[string]any)
	if !ok {
		if pyFalsy(v) {
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
		case checks.Suggest(k, known) != "":
			p.add(where, prefix+k, "unknown key (did you mean %q?)", checks.Suggest(k, known))
		default:
			p.add(where, prefix+k, "unknown key (known keys: %s)", strings.Join(known, ", "))
		}
	}
}

func (p *parser) optString(where at, field string, v any) string {
	if v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		p.add(where, field, "want a string, got %s", describe(v))
	}
	return s
}

func (p *parser) optObject(where at, field string, v any) (map[string]any, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := v.(map[string]any)
	if !ok {
		if pyFalsy(v) {
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
	if pyFalsy(v) {
		if _, isStr := v.(string); !isStr && v != nil {
			p.warn(where, field, "%s is falsy; treated as unset, as in the reference", describe(v))
		}
		return ""
	}
	s, ok := pyStr(v)
	if !ok {
		p.add(where, field, "want a string, got %s", describe(v))
		return ""
	}
	if _, isStr := v.(string); !isStr {
		p.warn(where, field, "%s is not a string; used as %q (the reference applies str())", describe(v), s)
	}
	return s
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
			s, ok := pyStr(item)
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

// explicitID is the case's id as the reference reads it (str() of a
// truthy scalar), or "" when the case has none.
func explicitID(item any) string {
	if m, ok := item.(map[string]any); ok && !pyFalsy(m["id"]) {
		if s, ok := pyStr(m["id"]); ok {
			return s
		}
	}
	return ""
}

func firstNonNil[T any](vals ...*T) *T {
	for _, v := range vals {
		if v != nil {
			return v
		}
	}
	return nil
}

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

func asNumber(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// decodeJSON decodes one JSON document with numbers as json.Number;
// syntax errors carry the line and column.
func decodeJSON(data []byte) (any, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := se.Offset
			if off > 0 && int(off) < len(data) || strings.HasPrefix(se.Error(), "invalid character") {
				off-- // the offset is just past the offending byte; at EOF it is the end
			}
			line, col := position(data, off)
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: %w", line, col, err)
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return v, nil
}

// position converts a byte offset to a 1-based line and column (in
// characters).
func position(data []byte, offset int64) (line, col int) {
	off := max(int(offset), 0)
	if off > len(data) {
		off = len(data)
	}
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	col = 1 + utf8.RuneCount(before[lineStart:])
	return line, col
}

// orderedKeys holds the raw JSON of every checks.tool_call_args_required_keys.
type orderedKeys struct {
	defaults json.RawMessage
	cases    []json.RawMessage
}

// orderedRequiredKeys extracts the raw text of each
// tool_call_args_required_keys object so its key order survives (a Go map
// loses it). Shape errors are ignored here; the main pass reports them.
func orderedRequiredKeys(data []byte) orderedKeys {
	var out orderedKeys
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return out
	}
	fromChecks := func(obj json.RawMessage) json.RawMessage {
		var m map[string]json.RawMessage
		if json.Unmarshal(obj, &m) != nil {
			return nil
		}
		var c map[string]json.RawMessage
		if json.Unmarshal(m["checks"], &c) != nil {
			return nil
		}
		return c["tool_call_args_required_keys"]
	}
	out.defaults = fromChecks(top["defaults"])
	var cases []json.RawMessage
	if json.Unmarshal(top["cases"], &cases) == nil {
		for _, c := range cases {
			out.cases = append(out.cases, fromChecks(c))
		}
	}
	return out
}

// describe renders a value for "got ..." in messages: its JSON text,
// shortened to 60 bytes.
func describe(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<=" must read as written, not \u003c=
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	const limit = 60
	if len(b) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(b[cut]) { // never split a character
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

func strconvQuote(s string) string { return `"` + s + `"` }
