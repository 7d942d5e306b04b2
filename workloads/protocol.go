package workloads

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/schema"
	"github.com/benchserve/benchserve/internal/suggest"
)

// Protocol is a case's "protocol" object: the case is a contract of the
// OpenAI chat completions protocol, judged by its check kind instead of
// quality checks (benchtest.RunConformance, benchserve conformance). The
// builtin suite (Conformance) has one such case per contract.
type Protocol struct {
	// Level is "level": how much the contract counts, "MUST" (breaking it
	// fails the run), "SHOULD" (a warning, failing only a strict run) or
	// "MAY" (recorded only); written in any case, stored upper-case.
	// Required.
	Level string
	// Check is "check": the check kind that judges the answer, e.g.
	// "stream_framing", "usage_total", "tool_arguments" (every kind and
	// the rule of the OpenAI API reference it holds a server to are
	// listed in docs/streams.md). Required.
	Check string
	// Stream is "stream": false sends the request non-streamed (no
	// stream_options); default true.
	Stream bool
	// Endpoint is "endpoint": "/v1/chat/completions" (default) or
	// "/v1/models" (a GET, no body).
	Endpoint string
	// Body is "body": keys merged over the request body built from the
	// case (model, messages, max_tokens, stream, stream_options,
	// enable_thinking, extra_body), overriding even those benchserve sets
	// itself; a null value removes the key. nil when not set.
	Body map[string]any
	// RawBody is "raw_body": sent as the body, byte for byte, instead of
	// a built one (a malformed body); nil when not set.
	RawBody *string
	// Compare is "compare": "non_stream" (the request is sent streamed
	// and not streamed, and the check compares the answers) or "".
	Compare string
	// CancelAfter is "cancel_after": the token chunks a cancel_stops
	// contract reads before closing the stream; default 2.
	CancelAfter int
	// Strict makes a SHOULD that fails fail the run. It is set by the
	// door (--strict, benchtest.ConformanceStrict), never read from a
	// file.
	Strict bool
}

// Rule is the rule of the OpenAI API reference the contract's check kind
// holds a server to: the rule in one sentence and the reference page it
// comes from; both "" for an unknown kind.
func (p *Protocol) Rule() (text, reference string) {
	r := contract.Rules[contract.Kind(p.Check)]
	return r.Text, r.Ref
}

// protocol parses a case's "protocol" object (parseProtocol), reporting
// each problem with its field. A protocol case is judged by its check
// kind alone: a "checks" object beside it is an error, and the defaults'
// checks do not apply to it. extra is the case's resolved extra body,
// which must hold what the check kind needs.
func (p *parser) protocol(where at, obj map[string]any, v any, extra map[string]any) *Protocol {
	m, ok := v.(map[string]any)
	if !ok {
		p.add(where, "protocol", "want an object with level and check, got %s", describe(v))
		return nil
	}
	if c, has := obj["checks"]; has && c != nil {
		p.add(where, "checks", "a protocol case is judged by protocol.check; remove checks (or make it a case of its own)")
	}
	spec, err := parseProtocol(m)
	if err != nil {
		p.specErrors(where, "", err)
		return nil
	}
	if probs := contract.ExtraProblems(contract.Kind(spec.Check), extra, schema.Compiles); len(probs) > 0 {
		errs := make([]error, len(probs))
		for i, pr := range probs {
			errs[i] = &checks.SpecError{Field: "extra_body." + pr.Field, Err: errors.New(pr.Message)}
		}
		p.specErrors(where, "", errors.Join(errs...))
		return nil
	}
	return spec
}

var protocolKeys = []string{"body", "cancel_after", "check", "compare", "endpoint", "level", "raw_body", "stream"}

// parseProtocol validates a case's "protocol" object (as decoded by
// encoding/json, numbers as float64 or json.Number) and returns it.
// Every problem is reported, joined, each a *checks.SpecError whose Field
// is "protocol.KEY": unknown keys (with a "did you mean"), wrong types,
// an unknown level or check kind, and a request shape the kind cannot
// judge (a completion_object that streams, a compare kind without
// "compare", a malformed_body without "raw_body", a models_list not on
// /v1/models, …).
func parseProtocol(raw map[string]any) (*Protocol, error) {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, &checks.SpecError{Field: "protocol." + field, Err: fmt.Errorf(format, args...)})
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if i := sort.SearchStrings(protocolKeys, k); i < len(protocolKeys) && protocolKeys[i] == k {
			continue
		}
		if s := suggest.Closest(k, protocolKeys); s != "" {
			add(k, "unknown key (did you mean %q?)", s)
		} else {
			add(k, "unknown key (known keys: %s)", strings.Join(protocolKeys, ", "))
		}
	}
	s := &Protocol{Stream: true, Endpoint: contract.EndpointChat, CancelAfter: contract.DefaultCancelAfter}
	switch v := raw["level"].(type) {
	case nil:
		add("level", "missing; want MUST, SHOULD or MAY")
	case string:
		switch l := contract.Level(strings.ToUpper(v)); l {
		case contract.Must, contract.Should, contract.May:
			s.Level = string(l)
		default:
			add("level", "want MUST, SHOULD or MAY, got %q", v)
		}
	default:
		add("level", "want MUST, SHOULD or MAY, got %s", contract.Describe(v))
	}
	kinds := contract.Kinds()
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	switch v := raw["check"].(type) {
	case nil:
		add("check", "missing; want a check kind (%s)", strings.Join(names, ", "))
	case string:
		if _, ok := contract.Rules[contract.Kind(v)]; ok {
			s.Check = v
		} else if sug := suggest.Closest(v, names); sug != "" {
			add("check", "unknown check kind %q (did you mean %q?)", v, sug)
		} else {
			add("check", "unknown check kind %q (known: %s)", v, strings.Join(names, ", "))
		}
	default:
		add("check", "want a check kind string, got %s", contract.Describe(v))
	}
	if v, ok := raw["stream"]; ok && v != nil {
		if b, isBool := v.(bool); isBool {
			s.Stream = b
		} else {
			add("stream", "want true or false, got %s", contract.Describe(v))
		}
	}
	if v, ok := raw["endpoint"]; ok && v != nil {
		if e, isStr := v.(string); isStr && (e == contract.EndpointChat || e == contract.EndpointModels) {
			s.Endpoint = e
		} else {
			add("endpoint", "want %q or %q, got %s", contract.EndpointChat, contract.EndpointModels, contract.Describe(v))
		}
	}
	if v, ok := raw["body"]; ok && v != nil {
		if m, isObj := v.(map[string]any); isObj {
			s.Body = m
		} else {
			add("body", "want an object of request keys, got %s", contract.Describe(v))
		}
	}
	if v, ok := raw["raw_body"]; ok && v != nil {
		if b, isStr := v.(string); isStr {
			s.RawBody = &b
		} else {
			add("raw_body", "want a string sent as the body, got %s", contract.Describe(v))
		}
	}
	if v, ok := raw["compare"]; ok && v != nil {
		if c, isStr := v.(string); isStr && c == contract.CompareNonStream {
			s.Compare = c
		} else {
			add("compare", "want %q, got %s", contract.CompareNonStream, contract.Describe(v))
		}
	}
	if v, ok := raw["cancel_after"]; ok && v != nil {
		if n, isInt := contract.AsInt(v); isInt && n >= 1 {
			s.CancelAfter = n
		} else {
			add("cancel_after", "want a number of token chunks >= 1, got %s", contract.Describe(v))
		}
	}
	if s.Check != "" {
		shape := contract.Shape{Check: contract.Kind(s.Check), Stream: s.Stream, Endpoint: s.Endpoint, Body: s.Body,
			RawBody: s.RawBody != nil, Compare: s.Compare}
		for _, p := range shape.Problems() {
			add(p.Field, "%s", p.Message)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}
