package contract

// The check kinds of the form body, missing key, several stop strings,
// invalid schema and completions echo and logprobs contracts (issue 28),
// kept in their own file with their rules: init adds them to Rules.
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
	Rules[CompletionsLogprobs] = Rule{"a completions request with logprobs: N gives choices[].logprobs with tokens, token_logprobs (each <= 0), top_logprobs (at most N+1 each) and increasing text_offset of one length, the tokens joined being the text, or a 4xx saying logprobs is unsupported", refLegacy}
}

// refLegacyCreate is the legacy completions request's reference page.
const refLegacyCreate = "https://platform.openai.com/docs/api-reference/completions/create"

// nonStreamed28 are this file's kinds judged on a non-streamed answer.
var nonStreamed28 = map[Kind]bool{FormBody: true, MissingAPIKey: true, InvalidSchema: true, CompletionsEcho: true, CompletionsLogprobs: true}

// extraProblems28 is ExtraProblems for this file's kinds: StopSeveral
// needs two or more stop strings, InvalidSchema a json_schema
// response_format whose schema does not compile.
func extraProblems28(k Kind, extra map[string]any, compiles func(schema any) error) []Problem {
	switch k {
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
