package contract

import (
	"fmt"
	"strings"
)

// Shape is the request a contract sends, as its case's "protocol" object
// sets it: the fields a check kind constrains.
type Shape struct {
	// Check is the contract's check kind.
	Check Kind
	// Stream sends the request streamed; Endpoint is EndpointChat or
	// EndpointModels; Body holds the keys merged over the built body;
	// RawBody says a raw body is sent instead; Compare is CompareNonStream
	// or "".
	Stream   bool
	Endpoint string
	Body     map[string]any
	RawBody  bool
	Compare  string
}

// Problem is one thing wrong with a contract's request: the field (a key
// of the "protocol" object, or of the case's extra body) and what is
// wrong, in words.
type Problem struct {
	Field, Message string
}

// Problems lists what the check kind cannot judge in the shape: a
// comparison without "compare" (or one with it that judges one answer), a
// raw-body kind without "raw_body", a models_list not on /v1/models, a
// streamed kind sent non-streamed, a body override a kind needs; nil when
// the shape fits.
func (s Shape) Problems() []Problem {
	out := shapeProblems28(s)
	bad := func(field, format string, args ...any) {
		out = append(out, Problem{field, fmt.Sprintf(format, args...)})
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
	case raw && !s.RawBody:
		bad("raw_body", "check %s needs the body to send: set \"raw_body\"", k)
	case !raw && s.RawBody:
		bad("raw_body", "check %s sends a built body; remove \"raw_body\"", k)
	}
	if (k == ModelsList) != (s.Endpoint == EndpointModels) {
		if k == ModelsList {
			bad("endpoint", "check %s reads GET %s: set \"endpoint\": %q", k, EndpointModels, EndpointModels)
		} else {
			bad("endpoint", "check %s posts to %s; only models_list reads %s", k, EndpointChat, EndpointModels)
		}
	}
	streamed := !(k == CompletionObject || k == WrongAPIKey || raw || k == UnknownModel || k == EmptyMessages || k == ModelsList ||
		k == StreamOptionsNoStream || k == NonObjectBody || k == SeedRepeats || k == EmbeddingsShape || k == CompletionsIndex)
	if nonStreamed28[k] {
		streamed = false
	}
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
	if k == StreamOptionsNoStream {
		if _, ok := s.Body["stream_options"].(map[string]any); !ok {
			bad("body", "check %s sends stream_options without stream: set \"body\": {\"stream_options\": {\"include_usage\": true}}", k)
		}
	}
	if k == MaxCompletionToken {
		if _, ok := s.Body["max_completion_tokens"]; !ok {
			bad("body", "check %s needs \"body\": {\"max_tokens\": null, \"max_completion_tokens\": N}", k)
		}
	}
	return out
}

// ExtraProblems reports, each with its Field a key of the extra body,
// what a case's extra body lacks for check kind k to judge the answer: a
// stop sequence for stop_sequence, tools for the tool kinds (and the
// tool_choice each tool_choice kind is about), parallel_tool_calls false
// for tool_parallel_false, n >= 2 for choices_n, the response_format for
// json_object and json_schema. compiles says why a JSON Schema (a tool's
// parameters, a json_schema format's schema) does not compile, nil when
// it does. nil when nothing is missing.
func ExtraProblems(k Kind, extra map[string]any, compiles func(schema any) error) []Problem {
	errs := extraProblems28(k, extra, compiles)
	bad := func(key, format string, args ...any) {
		errs = append(errs, Problem{key, fmt.Sprintf(format, args...)})
	}
	switch k {
	case StopSequence:
		if len(StopStrings(extra["stop"])) == 0 {
			bad("stop", "check %s needs a stop sequence: a string or a list of strings", k)
		}
	case SeedRepeats:
		if _, ok := AsInt(extra["seed"]); !ok {
			bad("seed", "check %s needs a seed (an integer), got %s", k, Describe(extra["seed"]))
		}
		if t, ok := AsInt(extra["temperature"]); !ok || t != 0 {
			bad("temperature", "check %s needs temperature 0, got %s", k, Describe(extra["temperature"]))
		}
	case ChoicesN:
		if n, ok := AsInt(extra["n"]); !ok || n < 2 {
			bad("n", "check %s needs n >= 2, got %s", k, Describe(extra["n"]))
		}
	case JSONObject, JSONSchema:
		rf, _ := extra["response_format"].(map[string]any)
		want := string(k)
		if rf["type"] != want {
			bad("response_format", "check %s needs response_format {\"type\": %q, …}, got %s", k, want, Describe(extra["response_format"]))
		} else if k == JSONSchema {
			js, _ := rf["json_schema"].(map[string]any)
			if _, ok := js["schema"].(map[string]any); !ok {
				bad("response_format", "check %s needs response_format.json_schema.schema, an object", k)
			} else if err := compiles(js["schema"]); err != nil {
				bad("response_format", "response_format.json_schema.schema: %v", err)
			}
		}
	case ToolChoiceNone, ToolChoiceRequired, ToolChoiceNamed, ToolArguments, ToolCallIDs, ToolFinishReason, ToolParallelFalse, ToolArgsAgree:
		schemas := ToolSchemas(extra["tools"])
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
				bad("tool_choice", "check %s needs tool_choice %q, got %s", k, want, Describe(choice))
			}
		case ToolChoiceNamed:
			if name := NamedChoice(choice); name == "" {
				bad("tool_choice", "check %s needs tool_choice {\"type\": \"function\", \"function\": {\"name\": …}}, got %s", k, Describe(choice))
			} else if _, ok := schemas[name]; !ok && len(schemas) > 0 {
				bad("tool_choice", "tool_choice names %q, which is not one of the tools", name)
			}
		case ToolParallelFalse:
			if extra["parallel_tool_calls"] != false {
				bad("parallel_tool_calls", "check %s needs parallel_tool_calls false, got %s", k, Describe(extra["parallel_tool_calls"]))
			}
		}
	}
	return errs
}
