package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/benchserve/benchserve/checks"
)

// Level is how much a contract counts, in RFC 2119's words.
type Level string

// The levels of a contract.
const (
	// Must: breaking the contract fails the run.
	Must Level = "MUST"
	// Should: breaking it is a warning; it fails the run only when strict
	// (benchserve conformance --strict, benchtest.ConformanceStrict).
	Should Level = "SHOULD"
	// May: the verdict is recorded and never fails the run.
	May Level = "MAY"
)

// Verdict is a contract's outcome.
type Verdict string

// The verdicts of a contract.
const (
	// Pass: the server kept the rule.
	Pass Verdict = "pass"
	// Fail: the server broke the rule; Evidence says how.
	Fail Verdict = "fail"
	// Skip: the rule did not apply (no tool call came to validate, the
	// server requires no API key, it has no running-requests gauge);
	// Evidence says why. A skip never fails a run.
	Skip Verdict = "skip"
)

// Failing reports whether a contract at level with verdict v fails the
// run: a MUST that failed, or a SHOULD that failed when strict.
func Failing(level Level, v Verdict, strict bool) bool {
	if v != Fail {
		return false
	}
	return level == Must || level == Should && strict
}

// Kind names a protocol check: what the contract's request is judged by.
type Kind string

// The protocol check kinds. Each is one rule of the OpenAI API reference
// (Rules); the comment gives the request shape the kind needs.
const (
	StreamFraming      Kind = "stream_framing"        // streamed
	StreamSameID       Kind = "stream_same_id"        // streamed
	StreamFirstRole    Kind = "stream_first_role"     // streamed
	StreamFinishOnce   Kind = "stream_finish_once"    // streamed
	StreamUsageChunk   Kind = "stream_usage_chunk"    // streamed (include_usage is always asked)
	UsageTotal         Kind = "usage_total"           // streamed
	UsageMaxTokens     Kind = "usage_max_tokens"      // streamed
	UsageLengthFinish  Kind = "usage_length_finish"   // streamed, a small max_tokens and a long answer
	UsagePromptAgrees  Kind = "usage_prompt_agrees"   // "compare": "non_stream"
	CompletionObject   Kind = "completion_object"     // "stream": false
	StreamAgrees       Kind = "stream_agrees"         // "compare": "non_stream"
	MaxCompletionToken Kind = "max_completion_tokens" // body {"max_tokens": null, "max_completion_tokens": N}
	StopSequence       Kind = "stop_sequence"         // extra_body "stop"
	ChoicesN           Kind = "choices_n"             // extra_body "n"
	ToolChoiceNone     Kind = "tool_choice_none"      // extra_body tools, tool_choice "none"
	ToolChoiceRequired Kind = "tool_choice_required"  // tool_choice "required"
	ToolChoiceNamed    Kind = "tool_choice_named"     // tool_choice {"type":"function","function":{"name":…}}
	ToolArguments      Kind = "tool_arguments"        // tools
	ToolCallIDs        Kind = "tool_call_ids"         // tools
	ToolFinishReason   Kind = "tool_finish_reason"    // tools
	ToolParallelFalse  Kind = "tool_parallel_false"   // tools, parallel_tool_calls false
	ToolArgsAgree      Kind = "tool_args_agree"       // tools, "compare": "non_stream"
	JSONObject         Kind = "json_object"           // response_format json_object
	JSONSchema         Kind = "json_schema"           // response_format json_schema
	MalformedBody      Kind = "malformed_body"        // "raw_body"
	ErrorJSON          Kind = "error_json"            // "raw_body"
	UnknownModel       Kind = "unknown_model"         // body {"model": …}
	EmptyMessages      Kind = "empty_messages"        // body {"messages": []}
	WrongAPIKey        Kind = "wrong_api_key"         // non-streamed; sends no key, then a wrong one
	ModelsList         Kind = "models_list"           // "endpoint": "/v1/models"
	ReasoningSeparated Kind = "reasoning_separated"   // streamed, enable_thinking true
	CancelStops        Kind = "cancel_stops"          // streamed, "cancel_after" chunks
)

// Rule is the rule of the OpenAI API reference a check kind holds a
// server to: Text says it in one sentence, Ref is the page it comes from.
type Rule struct {
	Text string
	Ref  string
}

// Reference pages the rules cite.
const (
	refStreaming  = "https://platform.openai.com/docs/api-reference/chat/streaming"
	refObject     = "https://platform.openai.com/docs/api-reference/chat/object"
	refCreate     = "https://platform.openai.com/docs/api-reference/chat/create"
	refTools      = "https://platform.openai.com/docs/guides/function-calling"
	refStructured = "https://platform.openai.com/docs/guides/structured-outputs"
	refErrors     = "https://platform.openai.com/docs/guides/error-codes"
	refModels     = "https://platform.openai.com/docs/api-reference/models/list"
	refReasoning  = "https://api-docs.deepseek.com/guides/reasoning_model"
)

// Rules maps every check kind to its rule. docs/streams.md lists the same
// table with where the reference is silent and what the suite accepts.
var Rules = map[Kind]Rule{
	StreamFraming:      {"a stream is data: events of JSON chat.completion.chunk objects ending with data: [DONE]", refStreaming},
	StreamSameID:       {"every chunk of a stream carries the same id and model", refStreaming},
	StreamFirstRole:    {`the first delta of each choice carries role "assistant"`, refStreaming},
	StreamFinishOnce:   {"each choice ends with exactly one non-null finish_reason and no content after it", refStreaming},
	StreamUsageChunk:   {"with stream_options.include_usage the last chunk before [DONE] has choices: [] and usage", refStreaming},
	UsageTotal:         {"usage.total_tokens = prompt_tokens + completion_tokens", refObject},
	UsageMaxTokens:     {"usage.completion_tokens <= max_tokens", refCreate},
	UsageLengthFinish:  {`an answer cut at max_tokens ends with finish_reason "length"`, refObject},
	UsagePromptAgrees:  {"the same request streamed and not streamed reports the same prompt_tokens", refObject},
	CompletionObject:   {"a non-streamed answer is a chat.completion object with choices[].message and a finish_reason", refObject},
	StreamAgrees:       {"at temperature 0 with a seed, the streamed and non-streamed answers have the same content and tool calls", refCreate},
	MaxCompletionToken: {"max_completion_tokens caps the answer as max_tokens does", refCreate},
	StopSequence:       {`a stop sequence ends the answer before it: the stop string is not in the content and finish_reason is "stop"`, refCreate},
	ChoicesN:           {"n: 2 gives choices with indexes 0 and 1, or a 4xx saying n is unsupported", refCreate},
	ToolChoiceNone:     {`tool_choice "none" gives no tool call`, refTools},
	ToolChoiceRequired: {`tool_choice "required" gives at least one tool call`, refTools},
	ToolChoiceNamed:    {"tool_choice naming a function gives calls to that function", refTools},
	ToolArguments:      {"tool-call arguments are JSON that validates against the tool's parameters schema", refTools},
	ToolCallIDs:        {"every tool call has an id, unique within the response", refObject},
	ToolFinishReason:   {`an answer that calls tools ends with finish_reason "tool_calls"`, refObject},
	ToolParallelFalse:  {"parallel_tool_calls: false gives at most one tool call", refTools},
	ToolArgsAgree:      {"streamed tool-call argument deltas reassemble to the non-streamed arguments", refStreaming},
	JSONObject:         {`response_format {"type": "json_object"} gives content that parses as JSON`, refStructured},
	JSONSchema:         {"response_format json_schema with strict: true gives content valid against the schema, or a 4xx saying it is unsupported", refStructured},
	MalformedBody:      {"a body that is not JSON is answered 400, never 2xx or 5xx", refErrors},
	ErrorJSON:          {`an error body is JSON ({"error": {…}})`, refErrors},
	UnknownModel:       {`an unknown model is answered 404 (or 400) with the error object {"error": {"message": …, "type": …}}`, refErrors},
	EmptyMessages:      {"empty messages are answered 4xx", refCreate},
	WrongAPIKey:        {"a wrong API key is answered 401 when the server requires one", refErrors},
	ModelsList:         {`GET /v1/models gives {"object": "list", "data": [{"id": …, "object": "model"}]} listing the model in use`, refModels},
	ReasoningSeparated: {"reasoning arrives in a delta field (reasoning_content or reasoning), not as <think> in content", refReasoning},
	CancelStops:        {"after the client closes a stream the server stops generating (its running-requests gauge falls)", refStreaming},
}

// Kinds returns every check kind, sorted.
func Kinds() []Kind {
	out := make([]Kind, 0, len(Rules))
	for k := range Rules {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Endpoints a contract's request may go to.
const (
	EndpointChat   = "/v1/chat/completions"
	EndpointModels = "/v1/models"
)

// CompareNonStream is the one "compare" value: the request is sent
// streamed and not streamed, and the check compares the two answers.
const CompareNonStream = "non_stream"

// DefaultCancelAfter is the token chunks a cancel_stops contract reads
// before it closes the stream, when "cancel_after" is not set.
const DefaultCancelAfter = 2

// Spec is a case's "protocol" object: a contract's level, its check kind
// and the shape of its request. Parse it with ParseSpec.
type Spec struct {
	// Level is "level": MUST, SHOULD or MAY (required).
	Level Level
	// Check is "check", the check kind (required).
	Check Kind
	// Stream is "stream": false sends the request non-streamed (no
	// stream_options); default true.
	Stream bool
	// Endpoint is "endpoint": EndpointChat (default) or EndpointModels
	// (a GET, no body).
	Endpoint string
	// Body is "body": keys merged over the request body built from the
	// case (model, messages, max_tokens, stream, stream_options,
	// enable_thinking, extra_body), overriding even those benchserve sets
	// itself; a null value removes the key. nil when not set.
	Body map[string]any
	// RawBody is "raw_body": sent as the body, byte for byte, instead of
	// a built one (a malformed body); nil when not set.
	RawBody *string
	// Compare is "compare": CompareNonStream or "".
	Compare string
	// CancelAfter is "cancel_after": the token chunks a cancel_stops
	// contract reads before closing the stream (DefaultCancelAfter).
	CancelAfter int
	// Strict makes a SHOULD that fails fail the run. It is set by the
	// door (--strict), never read from a file.
	Strict bool
}

// Rule is the spec's check kind's rule.
func (s *Spec) Rule() Rule { return Rules[s.Check] }

var specKeys = []string{"body", "cancel_after", "check", "compare", "endpoint", "level", "raw_body", "stream"}

// ParseSpec validates a case's "protocol" object (as decoded by
// encoding/json, numbers as float64 or json.Number) and returns the Spec.
// Every problem is reported, joined, each a *checks.SpecError whose Field
// is "protocol.KEY": unknown keys (with a "did you mean"), wrong types,
// an unknown level or check kind, and a request shape the kind cannot
// judge (a completion_object that streams, a compare kind without
// "compare", a malformed_body without "raw_body", a models_list not on
// /v1/models, …).
func ParseSpec(raw map[string]any) (*Spec, error) {
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
		if i := sort.SearchStrings(specKeys, k); i < len(specKeys) && specKeys[i] == k {
			continue
		}
		if s := checks.Suggest(k, specKeys); s != "" {
			add(k, "unknown key (did you mean %q?)", s)
		} else {
			add(k, "unknown key (known keys: %s)", strings.Join(specKeys, ", "))
		}
	}
	s := &Spec{Stream: true, Endpoint: EndpointChat, CancelAfter: DefaultCancelAfter}
	switch v := raw["level"].(type) {
	case nil:
		add("level", "missing; want MUST, SHOULD or MAY")
	case string:
		switch l := Level(strings.ToUpper(v)); l {
		case Must, Should, May:
			s.Level = l
		default:
			add("level", "want MUST, SHOULD or MAY, got %q", v)
		}
	default:
		add("level", "want MUST, SHOULD or MAY, got %s", describe(v))
	}
	kinds := Kinds()
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	switch v := raw["check"].(type) {
	case nil:
		add("check", "missing; want a check kind (%s)", strings.Join(names, ", "))
	case string:
		if _, ok := Rules[Kind(v)]; ok {
			s.Check = Kind(v)
		} else if sug := checks.Suggest(v, names); sug != "" {
			add("check", "unknown check kind %q (did you mean %q?)", v, sug)
		} else {
			add("check", "unknown check kind %q (known: %s)", v, strings.Join(names, ", "))
		}
	default:
		add("check", "want a check kind string, got %s", describe(v))
	}
	if v, ok := raw["stream"]; ok && v != nil {
		if b, isBool := v.(bool); isBool {
			s.Stream = b
		} else {
			add("stream", "want true or false, got %s", describe(v))
		}
	}
	if v, ok := raw["endpoint"]; ok && v != nil {
		if e, isStr := v.(string); isStr && (e == EndpointChat || e == EndpointModels) {
			s.Endpoint = e
		} else {
			add("endpoint", "want %q or %q, got %s", EndpointChat, EndpointModels, describe(v))
		}
	}
	if v, ok := raw["body"]; ok && v != nil {
		if m, isObj := v.(map[string]any); isObj {
			s.Body = m
		} else {
			add("body", "want an object of request keys, got %s", describe(v))
		}
	}
	if v, ok := raw["raw_body"]; ok && v != nil {
		if b, isStr := v.(string); isStr {
			s.RawBody = &b
		} else {
			add("raw_body", "want a string sent as the body, got %s", describe(v))
		}
	}
	if v, ok := raw["compare"]; ok && v != nil {
		if c, isStr := v.(string); isStr && c == CompareNonStream {
			s.Compare = c
		} else {
			add("compare", "want %q, got %s", CompareNonStream, describe(v))
		}
	}
	if v, ok := raw["cancel_after"]; ok && v != nil {
		if n, isInt := asInt(v); isInt && n >= 1 {
			s.CancelAfter = n
		} else {
			add("cancel_after", "want a number of token chunks >= 1, got %s", describe(v))
		}
	}
	if s.Check != "" {
		for _, e := range s.shapeErrors() {
			add(e[0], "%s", e[1])
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// shapeErrors lists (field, message) for a request shape the check kind
// cannot judge.
func (s *Spec) shapeErrors() [][2]string {
	var out [][2]string
	bad := func(field, format string, args ...any) {
		out = append(out, [2]string{field, fmt.Sprintf(format, args...)})
	}
	k := s.Check
	compares := k == UsagePromptAgrees || k == StreamAgrees || k == ToolArgsAgree
	raw := k == MalformedBody || k == ErrorJSON
	switch {
	case compares && s.Compare == "":
		bad("compare", "check %s compares a streamed and a non-streamed answer: set \"compare\": %q", k, CompareNonStream)
	case !compares && s.Compare != "":
		bad("compare", "check %s judges one answer; remove \"compare\"", k)
	}
	switch {
	case raw && s.RawBody == nil:
		bad("raw_body", "check %s needs the body to send: set \"raw_body\"", k)
	case !raw && s.RawBody != nil:
		bad("raw_body", "check %s sends a built body; remove \"raw_body\"", k)
	}
	if (k == ModelsList) != (s.Endpoint == EndpointModels) {
		if k == ModelsList {
			bad("endpoint", "check %s reads GET %s: set \"endpoint\": %q", k, EndpointModels, EndpointModels)
		} else {
			bad("endpoint", "check %s posts to %s; only models_list reads %s", k, EndpointChat, EndpointModels)
		}
	}
	streamed := !(k == CompletionObject || k == WrongAPIKey || raw || k == UnknownModel || k == EmptyMessages || k == ModelsList)
	if streamed && !s.Stream {
		bad("stream", "check %s judges a stream; remove \"stream\": false", k)
	}
	if k == CompletionObject && s.Stream {
		bad("stream", "check %s judges a non-streamed answer: set \"stream\": false", k)
	}
	if k == UnknownModel {
		if m, ok := s.Body["model"].(string); !ok || m == "" {
			bad("body", "check %s needs the unknown model's name: set \"body\": {\"model\": \"…\"}", k)
		}
	}
	if k == EmptyMessages {
		if m, ok := s.Body["messages"].([]any); !ok || len(m) != 0 {
			bad("body", "check %s sends no messages: set \"body\": {\"messages\": []}", k)
		}
	}
	if k == MaxCompletionToken {
		if _, ok := s.Body["max_completion_tokens"]; !ok {
			bad("body", "check %s needs \"body\": {\"max_tokens\": null, \"max_completion_tokens\": N}", k)
		}
	}
	return out
}

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	case float64:
		return int(n), n == float64(int(n))
	case int:
		return n, true
	}
	return 0, false
}

// describe renders a value for "got …" messages: its JSON, cut to 60 runes.
func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return Cut(string(b), 60)
}

// CheckRequest reports, as *checks.SpecError values whose Field is
// "extra_body.KEY", what the case's extra body lacks for the spec's check
// kind to judge the answer: a stop sequence for stop_sequence, tools for
// the tool kinds (and the tool_choice each tool_choice kind is about),
// parallel_tool_calls false for tool_parallel_false, n >= 2 for
// choices_n, the response_format for json_object and json_schema. nil
// when nothing is missing.
func (s *Spec) CheckRequest(extra map[string]any) []error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &checks.SpecError{Field: "extra_body." + key, Err: fmt.Errorf(format, args...)})
	}
	k := s.Check
	switch k {
	case StopSequence:
		if len(stopStrings(extra["stop"])) == 0 {
			bad("stop", "check %s needs a stop sequence: a string or a list of strings", k)
		}
	case ChoicesN:
		if n, ok := asInt(extra["n"]); !ok || n < 2 {
			bad("n", "check %s needs n >= 2, got %s", k, describe(extra["n"]))
		}
	case JSONObject, JSONSchema:
		rf, _ := extra["response_format"].(map[string]any)
		want := string(k)
		if rf["type"] != want {
			bad("response_format", "check %s needs response_format {\"type\": %q, …}, got %s", k, want, describe(extra["response_format"]))
		} else if k == JSONSchema {
			js, _ := rf["json_schema"].(map[string]any)
			if _, ok := js["schema"].(map[string]any); !ok {
				bad("response_format", "check %s needs response_format.json_schema.schema, an object", k)
			} else if err := compiles(js["schema"]); err != nil {
				bad("response_format", "response_format.json_schema.schema: %v", err)
			}
		}
	case ToolChoiceNone, ToolChoiceRequired, ToolChoiceNamed, ToolArguments, ToolCallIDs, ToolFinishReason, ToolParallelFalse, ToolArgsAgree:
		schemas := toolSchemas(extra["tools"])
		if len(schemas) == 0 {
			bad("tools", "check %s needs tools: a list of {\"type\": \"function\", \"function\": {\"name\": …, \"parameters\": …}}", k)
		}
		for name, sch := range schemas {
			if err := compiles(sch); err != nil {
				bad("tools", "the parameters of %q: %v", name, err)
			}
		}
		choice := extra["tool_choice"]
		switch k {
		case ToolChoiceNone, ToolChoiceRequired:
			want := strings.TrimPrefix(string(k), "tool_choice_")
			if choice != want {
				bad("tool_choice", "check %s needs tool_choice %q, got %s", k, want, describe(choice))
			}
		case ToolChoiceNamed:
			if name := namedChoice(choice); name == "" {
				bad("tool_choice", "check %s needs tool_choice {\"type\": \"function\", \"function\": {\"name\": …}}, got %s", k, describe(choice))
			} else if _, ok := schemas[name]; !ok && len(schemas) > 0 {
				bad("tool_choice", "tool_choice names %q, which is not one of the tools", name)
			}
		case ToolParallelFalse:
			if extra["parallel_tool_calls"] != false {
				bad("parallel_tool_calls", "check %s needs parallel_tool_calls false, got %s", k, describe(extra["parallel_tool_calls"]))
			}
		}
	}
	return errs
}
