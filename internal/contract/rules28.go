package contract

import "fmt"

// The check kinds of the form body, missing key, several stop strings,
// invalid schema, completions echo, logprobs and n, unasked usage,
// Responses ids and store, and repeated-prompt cache contracts (issue
// 28), kept in their own file with their rules: init adds them to Rules.
const (
	// FormBody: "stream": false; the case's request sent form-encoded
	// (Content-Type application/x-www-form-urlencoded), not as JSON.
	FormBody Kind = "form_body"
	// MissingAPIKey: "stream": false; the case's request sent with no
	// Authorization header.
	MissingAPIKey Kind = "missing_api_key"
	// StopSeveral: streamed, extra_body "stop" a list of two or more
	// strings.
	StopSeveral Kind = "stop_several"
	// InvalidSchema: "stream": false, extra_body response_format
	// json_schema whose schema does not compile.
	InvalidSchema Kind = "invalid_schema"
	// CompletionsEcho: "stream": false; posts CompletionPrompts[0] with
	// echo true to EndpointCompletions.
	CompletionsEcho Kind = "completions_echo"
	// CompletionsLogprobs: "stream": false; posts CompletionPrompts[0]
	// with logprobs CompletionLogprobs to EndpointCompletions.
	CompletionsLogprobs Kind = "completions_logprobs"
	// CompletionsN: "stream": false, extra_body "n" >= 2; posts
	// CompletionPrompts[0] with the extra body to EndpointCompletions.
	CompletionsN Kind = "completions_n"
	// StreamUsageUnasked: streamed, body {"stream_options": null}: the
	// case's request streamed without stream_options.
	StreamUsageUnasked Kind = "stream_usage_unasked"
	// ResponsesIDs: streamed; the case's request sent to /v1/responses,
	// its events' ids judged.
	ResponsesIDs Kind = "responses_ids"
	// ResponsesStore: "stream": false; the case's request sent to
	// /v1/responses with store true, then a follow-up with
	// previous_response_id the first answer's id.
	ResponsesStore Kind = "responses_store"
	// CacheRepeat: "stream": false; the case's request sent twice, the
	// second answer's usage.prompt_tokens_details.cached_tokens judged.
	CacheRepeat Kind = "cache_repeat"
)

// CompletionLogprobs is the logprobs a completions_logprobs contract asks
// for: the top 2 alternatives of each token.
const CompletionLogprobs = 2

func init() {
	Rules[FormBody] = Rule{"a form-encoded body (application/x-www-form-urlencoded) is answered 4xx, never 2xx or 5xx", refErrors}
	Rules[MissingAPIKey] = Rule{`a request without an API key is answered 401 with the error object {"error": {"message": …}} when the server requires a key`, refErrors}
	Rules[StopSeveral] = Rule{`with several stop sequences the answer ends before the earliest that appears: none of them is in the content and finish_reason is "stop"`, refCreate}
	Rules[InvalidSchema] = Rule{"an invalid JSON schema in response_format json_schema is answered 4xx within the request deadline, not a 5xx, a hang or an answer", refStructured}
	Rules[CompletionsEcho] = Rule{"a completions request with echo: true gives text that begins with the prompt, or a 4xx saying echo is unsupported", refLegacyCreate}
	Rules[CompletionsN] = Rule{"a completions request with n: N and one prompt gives N choices with indexes 0 to N-1, each with text and a finish_reason, or a 4xx saying n is unsupported", refLegacyCreate}
	Rules[StreamUsageUnasked] = Rule{`a stream without stream_options carries no usage: "usage" is only present when you set stream_options: {"include_usage": true} (null or absent otherwise), so no chunk has a non-null usage and none has choices: [] and usage`, refChunk}
	Rules[ResponsesIDs] = Rule{`a Responses stream's response id starts with "resp_" and is the same in every event that carries the response; message items' ids start with "msg_", function_call items' with "fc_", reasoning items' with "rs_"`, refRespEvents}
	Rules[ResponsesStore] = Rule{"a Responses request with previous_response_id naming a stored response (sent with store: true) is answered 2xx with that previous_response_id, or a 4xx saying the server stores no responses", refRespCreate}
	Rules[CacheRepeat] = Rule{"a repeated identical request reports usage.prompt_tokens_details.cached_tokens > 0 (and <= prompt_tokens) where the server reports the field", refObject}
	Rules[CompletionsLogprobs] = Rule{"a completions request with logprobs: N gives choices[].logprobs with tokens, token_logprobs (each <= 0), top_logprobs (at most N+1 each) and increasing text_offset of one length, the tokens joined being the text, or a 4xx saying logprobs is unsupported", refLegacy}
}

// Reference pages of this file's rules.
const (
	// refLegacyCreate is the legacy completions request's reference page.
	refLegacyCreate = "https://platform.openai.com/docs/api-reference/completions/create"
	// refChunk is the chat.completion.chunk object's page (its usage
	// field).
	refChunk = "https://platform.openai.com/docs/api-reference/chat-streaming/streaming"
	// refRespCreate is the Responses request's page (store,
	// previous_response_id).
	refRespCreate = "https://platform.openai.com/docs/api-reference/responses/create"
)

// nonStreamed28 are this file's kinds judged on a non-streamed answer.
var nonStreamed28 = map[Kind]bool{FormBody: true, MissingAPIKey: true, InvalidSchema: true, CompletionsEcho: true, CompletionsLogprobs: true,
	CompletionsN: true, ResponsesStore: true, CacheRepeat: true}

// extraProblems28 is ExtraProblems for this file's kinds: CompletionsN
// needs n >= 2, StopSeveral two or more stop strings, InvalidSchema a
// json_schema response_format whose schema does not compile.
func extraProblems28(k Kind, extra map[string]any, compiles func(schema any) error) []Problem {
	switch k {
	case CompletionsN:
		if n, ok := AsInt(extra["n"]); !ok || n < 2 {
			return []Problem{{"n", "check completions_n needs n >= 2, got " + Describe(extra["n"])}}
		}
	case StopSeveral:
		if n := len(StopStrings(extra["stop"])); n < 2 {
			return []Problem{{"stop", "check stop_several needs a list of two or more stop strings, got " + Describe(extra["stop"])}}
		}
	case InvalidSchema:
		rf, _ := extra["response_format"].(map[string]any)
		js, _ := rf["json_schema"].(map[string]any)
		if rf["type"] != "json_schema" || js["schema"] == nil {
			return []Problem{{"response_format", "check invalid_schema needs response_format {\"type\": \"json_schema\", \"json_schema\": {\"schema\": …}}, got " + Describe(extra["response_format"])}}
		}
		if compiles(js["schema"]) == nil {
			return []Problem{{"response_format", "check invalid_schema needs a schema that does not compile; response_format.json_schema.schema is a valid JSON Schema"}}
		}
	}
	return nil
}

// shapeProblems28 is Shape.Problems for this file's kinds:
// StreamUsageUnasked needs "body": {"stream_options": null}, so that the
// stream is sent without the stream_options every other stream carries.
func shapeProblems28(s Shape) []Problem {
	if s.Check != StreamUsageUnasked {
		return nil
	}
	if v, ok := s.Body["stream_options"]; !ok || v != nil {
		return []Problem{{"body", fmt.Sprintf("check %s streams without stream_options: set \"body\": {\"stream_options\": null}", s.Check)}}
	}
	return nil
}
