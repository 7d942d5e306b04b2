// Package contract is the pure data of benchserve's protocol contracts,
// shared by the workload loader (package workloads, which parses and
// validates a case's "protocol" object) and the judge (internal/
// conformance, which sends a contract's requests and judges the answers):
// the levels, verdicts and check kinds, each kind's rule of the OpenAI API
// reference (Rules), and the request shape each kind needs (Shape,
// ExtraProblems).
//
// It imports only the standard library, so loading a workload does not
// link the client that judges a server.
package contract

import "sort"

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
	// Unsupported: the server said, with a 4xx, that it does not serve the
	// feature the rule is about (n > 1, a json_schema response_format);
	// Evidence quotes the refusal. Neither a failure nor a skip: the rule
	// was asked and the server declined it. It never fails a run.
	Unsupported Verdict = "unsupported"
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
	// StreamOptionsNoStream: "stream": false, body {"stream_options": {…}}.
	StreamOptionsNoStream Kind = "stream_options_no_stream"
	// NonObjectBody: "stream": false; sends the JSON bodies "…", [1], 42
	// and null.
	NonObjectBody Kind = "non_object_body"
	// SeedRepeats: "stream": false, extra_body temperature 0 and a seed;
	// the request is sent SeedRepeatCount times.
	SeedRepeats Kind = "seed_repeats"
	// EmbeddingsShape: "stream": false; posts EmbedInputs to
	// EndpointEmbeddings, float and base64, then input [].
	EmbeddingsShape Kind = "embeddings_shape"
	// CompletionsIndex: "stream": false; posts CompletionPrompts to
	// EndpointCompletions.
	CompletionsIndex Kind = "completions_index"
	// ResponsesUsage: streamed; the case's request sent to /v1/responses.
	ResponsesUsage Kind = "responses_usage"
	// ResponsesEvents: streamed; the case's request sent to
	// /v1/responses, its events kept and judged in order.
	ResponsesEvents Kind = "responses_events"
)

// CompletionPrompts are the prompts a completions_index contract sends in
// one request.
var CompletionPrompts = []string{"Once upon a time", "The capital of France is"}

// EmbedInputs are the inputs an embeddings_shape contract embeds: the
// first and last identical, so their vectors must be.
var EmbedInputs = []string{"The lighthouse keeper climbed the stairs.", "Name three colours.", "The lighthouse keeper climbed the stairs."}

// SeedRepeatCount is how many times a seed_repeats contract sends its
// request: 4, as the servers' own suites do.
const SeedRepeatCount = 4

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
	refEmbeddings = "https://platform.openai.com/docs/api-reference/embeddings/create"
	refLegacy     = "https://platform.openai.com/docs/api-reference/completions/object"
	refResponses  = "https://platform.openai.com/docs/api-reference/responses-streaming/response/completed"
	refRespEvents = "https://platform.openai.com/docs/api-reference/responses-streaming"
)

// Rules maps every check kind to its rule. docs/streams.md lists the same
// table with where the reference is silent and what the suite accepts.
var Rules = map[Kind]Rule{
	StreamFraming:         {"a stream is data: events of JSON chat.completion.chunk objects ending with data: [DONE]", refStreaming},
	StreamSameID:          {"every chunk of a stream carries the same id and model", refStreaming},
	StreamFirstRole:       {`the first delta of each choice carries role "assistant"`, refStreaming},
	StreamFinishOnce:      {"each choice ends with exactly one non-null finish_reason and no content after it", refStreaming},
	StreamUsageChunk:      {"with stream_options.include_usage the last chunk before [DONE] has choices: [] and usage", refStreaming},
	UsageTotal:            {"usage.total_tokens = prompt_tokens + completion_tokens", refObject},
	UsageMaxTokens:        {"usage.completion_tokens <= max_tokens", refCreate},
	UsageLengthFinish:     {`an answer cut at max_tokens ends with finish_reason "length"`, refObject},
	UsagePromptAgrees:     {"the same request streamed and not streamed reports the same prompt_tokens", refObject},
	CompletionObject:      {"a non-streamed answer is a chat.completion object with choices[].message and a finish_reason", refObject},
	StreamAgrees:          {"at temperature 0 with a seed, the streamed and non-streamed answers have the same content and tool calls", refCreate},
	MaxCompletionToken:    {"max_completion_tokens caps the answer as max_tokens does", refCreate},
	StopSequence:          {`a stop sequence ends the answer before it: the stop string is not in the content and finish_reason is "stop"`, refCreate},
	ChoicesN:              {"n: 2 gives choices with indexes 0 and 1, or a 4xx saying n is unsupported", refCreate},
	ToolChoiceNone:        {`tool_choice "none" gives no tool call`, refTools},
	ToolChoiceRequired:    {`tool_choice "required" gives at least one tool call`, refTools},
	ToolChoiceNamed:       {"tool_choice naming a function gives calls to that function", refTools},
	ToolArguments:         {"tool-call arguments are JSON that validates against the tool's parameters schema", refTools},
	ToolCallIDs:           {"every tool call has an id, unique within the response", refObject},
	ToolFinishReason:      {`an answer that calls tools ends with finish_reason "tool_calls"`, refObject},
	ToolParallelFalse:     {"parallel_tool_calls: false gives at most one tool call", refTools},
	ToolArgsAgree:         {"streamed tool-call argument deltas reassemble to the non-streamed arguments", refStreaming},
	JSONObject:            {`response_format {"type": "json_object"} gives content that is a JSON object`, refStructured},
	JSONSchema:            {"response_format json_schema with strict: true gives content valid against the schema, or a 4xx saying it is unsupported", refStructured},
	MalformedBody:         {"a body that is not JSON is answered 400, never 2xx or 5xx", refErrors},
	ErrorJSON:             {`an error body is JSON ({"error": {…}})`, refErrors},
	UnknownModel:          {`an unknown model is answered 404 (or 400) with the error object {"error": {"message": …, "type": …}}`, refErrors},
	EmptyMessages:         {"empty messages are answered 4xx", refCreate},
	WrongAPIKey:           {"a wrong API key is answered 401 when the server requires one", refErrors},
	ModelsList:            {`GET /v1/models gives {"object": "list", "data": [{"id": …, "object": "model"}]} listing the model in use`, refModels},
	ReasoningSeparated:    {"reasoning arrives in a delta field (reasoning_content or reasoning), not as <think> in content", refReasoning},
	CancelStops:           {"after the client closes a stream the server stops generating (its running-requests gauge falls)", refStreaming},
	CancelFreesCapacity:   {"streams the client abandons after their first token free their capacity: a new request then finishes within max(10× a request's latency before them, 30 s)", refStreaming},
	StreamOptionsNoStream: {"stream_options with stream: false is answered 400 (a 4xx), not ignored", refCreate},
	SeedRepeats:           {"at temperature 0 with a seed, the same request gets the same answer (content and tool calls) four times", refCreate},
	EmbeddingsShape:       {"an embeddings answer has one vector per input with index i, identical inputs give identical vectors, base64 decodes to the same floats, usage.prompt_tokens = total_tokens, and input [] is answered 4xx", refEmbeddings},
	CompletionsIndex:      {"a completions request with a list of prompts gives a text_completion with one choice per prompt, choices[].index the prompt's position, each with text and a finish_reason", refLegacy},
	ResponsesUsage:        {"a Responses stream's response.completed carries usage with total_tokens = input_tokens + output_tokens and output_tokens <= max_output_tokens", refResponses},
	ResponsesEvents:       {"a Responses stream goes response.created, response.in_progress, then per output item output_item.added … output_item.done (a message: content_part.added, output_text.delta*, output_text.done, content_part.done), with increasing sequence_number, every item_id naming an open item, the deltas joined equal to output_text.done's text, and ends with response.completed, .incomplete or .failed", refRespEvents},
	NonObjectBody:         {"a JSON body that is not an object (a string, a list, a number, null) is answered 4xx, never 2xx or 5xx", refErrors},
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
	// EndpointEmbeddings is where embeddings_shape posts (its kind says
	// so; the case's "endpoint" stays unset).
	EndpointEmbeddings = "/v1/embeddings"
	// EndpointCompletions is where completions_index posts.
	EndpointCompletions = "/v1/completions"
)

// CompareNonStream is the one "compare" value: the request is sent
// streamed and not streamed, and the check compares the two answers.
const CompareNonStream = "non_stream"

// DefaultCancelAfter is the token chunks a cancel_stops contract reads
// before it closes the stream, when "cancel_after" is not set.
const DefaultCancelAfter = 2
