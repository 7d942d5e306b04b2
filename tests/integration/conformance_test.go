package integration

import (
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/workloads"
)

// toolsModel is the tiny model with a template that takes tools, which
// scripts/realserver.sh registers on Ollama beside defaultModel: the tool contracts
// then reach the server's tool handling instead of its refusal of a model
// without tools.
const toolsModel = defaultModel + "-tools"

// ollamaVerdicts is the verdict ("pass", "fail", "skip" or "unsupported";
// "a|b" where
// sampling decides) of every builtin contract on the pinned
// Ollama versions with toolsModel, as watched. Both versions keep the same
// contracts; why each one that does not pass does not:
//   - limits.max_completion_tokens (warn, rarely pass): ignored, the
//     answer runs on; the suite's request has no seed, and the few sampled
//     answers that end by </s> within 8 tokens pass (TestOllamaDifferences
//     pins the ignoring with a seed).
//   - limits.stop (skip): the tiny model's answer reached max_tokens first.
//   - choices.n (warn): n=2 silently gives one choice.
//   - tools.required, tools.named (fail): tool_choice is ignored, and the
//     tiny model never writes a tool call.
//   - tools.arguments, tools.ids, tools.finish_reason (skip): no tool call
//     to check.
//   - tools.stream_agrees (warn): greedy decoding hits Ollama's repeat
//     abort, which ends the answer without a finish_reason (v0.17.4) or,
//     with tools on v0.6.5, with an empty application/x-ndjson body.
//   - usage.length_finish (pass, sometimes skip): an unseeded answer that
//     ends by </s> before max_tokens is not a cut answer to judge.
//   - structured.json_object (pass or skip): the suite's request has no
//     seed; about one sampled answer in five runs to max_tokens inside the
//     grammar, and a cut answer is skipped (its JSON cannot be complete).
//   - structured.json_schema (skip): the answer was cut at max_tokens.
//   - errors.wrong_api_key (skip): Ollama requires no key.
//   - reasoning.separated (skip): the model does not think.
//   - cancel.stops (skip): no running-requests gauge (no /metrics).
//   - errors.stream_options_no_stream (warn): stream_options is ignored
//     without stream, 200 (ChatMiddleware binds it and never checks,
//     middleware/openai.go).
//   - errors.non_object_body (pass): gin's ShouldBindJSON refuses a
//     string, list or number with 400, and null binds to no messages,
//     400 too.
//   - limits.stop_several (skip): as limits.stop, the answer reaches
//     max_tokens before any of the stop strings.
//   - structured.invalid_schema (warn): llama.SchemaToGrammar gives no
//     grammar, llm/server.go's Completion returns "invalid JSON schema in
//     format" and ChatHandler answers that error 500.
//   - errors.missing_key (skip): Ollama requires no key, a request
//     without one is answered 200.
//   - errors.form_body (pass): a form body is not JSON, gin's
//     ShouldBindJSON refuses it with 400.
//   - nonstream.seed_repeats (pass): temperature 0 is greedy, the same
//     answer four times (watched four runs per version).
//   - cancel.frees_capacity (pass, sometimes fail): 16 abandoned streams
//     later a new stream's first token usually comes within milliseconds
//     of the baseline, but in about 1 run of 5 on either version the
//     runner stopped answering (the log's last word "superfluous
//     response.WriteHeader call from …llamarunner.(*Server).completion"),
//     then every request hung until a restart.
//   - usage.length_finish is skip, not fail, when the answer's 8th
//     counted token was </s>: the runner counts the EOS it sampled in
//     eval_count (numPredicted, runner/ollamarunner) and says "stop".
//   - completions.echo (warn): echo is ignored (CompletionRequest has
//     no echo field), the text lacks the prompt.
//   - completions.logprobs (warn): the non-streamed completion carries no
//     logprobs at all (watched on both versions).
//   - stream.usage_unasked (pass): the usage chunk comes only with
//     stream_options.include_usage.
//   - completions.n (warn): n=2 on /v1/completions silently gives one
//     choice, as on chat (seeded; four runs per version agree).
//   - cache.repeat (skip): Ollama never reports
//     usage.prompt_tokens_details.cached_tokens.
var ollamaVerdicts = map[string]string{
	// Sampled: either verdict, see above.
	"structured.json_object": "pass|skip", "usage.length_finish": "pass|skip",
	"limits.max_completion_tokens": "fail|pass",

	"stream.framing": "pass", "stream.same_id": "pass", "stream.first_role": "pass",
	"stream.finish_once": "pass", "stream.usage_chunk": "pass",
	"usage.total": "pass", "usage.max_tokens": "pass", "usage.prompt_agrees": "pass",
	"nonstream.object": "pass", "nonstream.agrees": "pass",
	"limits.stop": "skip",
	"choices.n":   "fail",
	"tools.none":  "pass", "tools.required": "fail", "tools.named": "fail",
	"tools.arguments": "skip", "tools.ids": "skip", "tools.finish_reason": "skip",
	"tools.parallel_false": "pass", "tools.stream_agrees": "fail",
	"structured.json_schema": "skip",
	"errors.malformed_json":  "pass", "errors.json_body": "pass", "errors.unknown_model": "pass",
	"errors.empty_messages": "pass", "errors.wrong_api_key": "skip",
	"models.list":         "pass",
	"reasoning.separated": "skip",
	"cancel.stops":        "skip",

	"errors.stream_options_no_stream": "fail", "errors.non_object_body": "pass",
	"limits.stop_several": "skip", "structured.invalid_schema": "fail",
	"errors.missing_key": "skip", "errors.form_body": "pass",
	"nonstream.seed_repeats": "pass",
	"completions.echo":       "fail", "completions.logprobs": "fail",
	// Both versions answer a list of prompts on /v1/completions with 400.
	"completions.index":    "fail",
	"stream.usage_unasked": "pass", "completions.n": "fail", "cache.repeat": "skip",
	// embeddings.shape and the responses contracts differ by version: see
	// ollamaV065Verdicts and ollamaV0174Verdicts.

	"cancel.frees_capacity": "pass|fail",
}

// ollamaV065Verdicts: v0.6.5 ignores encoding_format "base64" (it
// answers arrays of floats: embeddings.shape fails) and serves no
// /v1/responses (404: the responses contracts are skip).
var ollamaV065Verdicts = withVerdicts(ollamaVerdicts, map[string]string{
	"embeddings.shape": "fail", "responses.usage": "skip", "responses.events": "skip",
	"responses.ids": "skip", "responses.store": "skip",
})

// ollamaV0174Verdicts: v0.17.4 embeds with the tiny model (identical
// inputs identical, base64 round-trips, input [] 400) and serves
// /v1/responses stateless with usage, its events in order
// (ResponsesStreamConverter numbers every event, openai/responses.go),
// with OpenAI's id prefixes (resp_, msg_) and one response id. It is
// stateless without saying so: store true and previous_response_id are
// answered 200, the follow-up's previous_response_id null
// (responses.store warns; four runs agree).
var ollamaV0174Verdicts = withVerdicts(ollamaVerdicts, map[string]string{
	"embeddings.shape": "pass", "responses.usage": "pass", "responses.events": "pass",
	"responses.ids": "pass", "responses.store": "fail",
})

// withVerdicts is base with the verdicts of over replacing its own.
func withVerdicts(base, over map[string]string) map[string]string {
	m := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range over {
		m[k] = v
	}
	return m
}

// llamaCppVerdicts is the verdict of every builtin contract on
// llama-server (scripts/llamaserver.sh: --jinja, a template that takes
// tools, the llama.cpp variant of the tiny model, an API key), as watched.
// Why each one that does not pass does not:
//   - limits.stop (skip): the greedy answer (" the the the …") never
//     writes the stop string "5" before max_tokens.
//   - tools.named (fail): llama-server reads tool_choice as a string only;
//     an object naming a function is "Wrong type … using default value"
//     (auto), so the model picks the function (always get_weather).
//   - structured.json_object (fail or skip): llama-server constrains
//     response_format json_object only when it carries a schema ({} is
//     treated as none), so the answer is prose: cut at max_tokens (skip) or
//     ended by </s> (fail, not JSON).
//   - usage.length_finish (pass, rarely skip): an unseeded 8-token answer
//     that ends by </s> first is not a cut answer to judge.
//   - errors.malformed_json (fail): a body that is not JSON is a 500
//     ("parse_error", type server_error), not a 400.
//   - errors.unknown_model, errors.empty_messages (fail): llama-server
//     serves its one model whatever "model" names, and answers empty
//     messages (the template renders the generation prompt alone), 200.
//   - reasoning.separated (skip): the model does not think.
//   - errors.stream_options_no_stream (warn): params_from_json reads
//     stream_options whatever stream says (server-task.cpp), 200.
//   - errors.non_object_body (pass): a body without "messages" is
//     std::invalid_argument "'messages' is required", a 400
//     (server-common.cpp).
//   - choices.n (pass, once in five runs fail): the suite's n=2 request
//     has no seed, and a choice that ends by </s> at once carries no token.
//   - limits.stop_several (skip): as limits.stop, the greedy answer
//     writes none of the stop strings before max_tokens.
//   - structured.invalid_schema (pass): 400 "Unable to generate parser
//     for this template … JSON schema".
//   - errors.form_body (fail): json::parse of the form body throws, a
//     500 "parse_error" as for errors.malformed_json.
//   - errors.missing_key (pass): 401 "Invalid API Key" with the error
//     object (skip without LLAMASERVER_API_KEY).
//   - responses.events (fail): no event carries a sequence_number
//     (to_json_oaicompat_resp and its _stream builds none, server-task.cpp).
//   - completions.echo (warn): echo is ignored, the text lacks the prompt
//     (oaicompat_completion_params_parse, which refuses echo, is not
//     called by /v1/completions in this version).
//   - completions.logprobs (warn): logprobs come in chat's shape
//     {"content": [{token, logprob, top_logprobs}]} (probs_vector_to_json),
//     not the legacy tokens/token_logprobs/top_logprobs/text_offset.
//   - nonstream.seed_repeats, cancel.frees_capacity (pass): watched in
//     five runs (the slot is freed: cancel.stops passes too).
//   - responses.store (unsupported): previous_response_id is refused 400
//     "llama.cpp does not support 'previous_response_id'".
//   - stream.usage_unasked, completions.n, responses.ids, cache.repeat
//     (pass): watched in five runs (completions.n is seeded; the repeat
//     reports 262 of 263 prompt tokens cached).
var llamaCppVerdicts = map[string]string{
	// Sampled: either verdict, see above.
	"structured.json_object": "fail|skip", "usage.length_finish": "pass|skip",

	"stream.framing": "pass", "stream.same_id": "pass", "stream.first_role": "pass",
	"stream.finish_once": "pass", "stream.usage_chunk": "pass",
	"usage.total": "pass", "usage.max_tokens": "pass", "usage.prompt_agrees": "pass",
	"nonstream.object": "pass", "nonstream.agrees": "pass",
	"limits.max_completion_tokens": "pass",
	"limits.stop":                  "skip",
	"choices.n":                    "pass|fail",
	"tools.none":                   "pass", "tools.required": "pass", "tools.named": "fail",
	"tools.arguments": "pass", "tools.ids": "pass", "tools.finish_reason": "pass",
	"tools.parallel_false": "pass", "tools.stream_agrees": "pass",
	"structured.json_schema": "pass",
	"errors.malformed_json":  "fail", "errors.json_body": "pass", "errors.unknown_model": "fail",
	"errors.empty_messages": "fail", "errors.wrong_api_key": "pass",
	"models.list":         "pass",
	"reasoning.separated": "skip",
	// Sampled on a busy machine: the gauge fell back within the 5 s grace
	// in the runs watched here, once not (CI, 2026-12-03).
	"cancel.stops": "pass|fail",

	"errors.stream_options_no_stream": "fail", "errors.non_object_body": "pass",
	"nonstream.seed_repeats": "pass",
	"limits.stop_several":    "skip", "structured.invalid_schema": "pass",
	"errors.form_body": "fail", "errors.missing_key": "pass",
	"responses.events": "fail",
	"completions.echo": "fail", "completions.logprobs": "fail",
	// input [] is answered 500, not 4xx.
	"embeddings.shape": "fail",
	// One choice per prompt, indexes 0 and 1.
	"completions.index": "pass",
	// /v1/responses streams with usage in response.completed.
	"responses.usage":       "pass",
	"cancel.frees_capacity": "pass",
	"stream.usage_unasked":  "pass", "completions.n": "pass", "responses.ids": "pass",
	"responses.store": "unsupported", "cache.repeat": "pass",
}

// conformanceByServer is keyed by serverID.String(): the version Ollama
// reports on GET /api/version, the commit llama-server reports in GET
// /props build_info.
var conformanceByServer = map[string]map[string]string{
	"ollama 0.6.5":        ollamaV065Verdicts,
	"ollama 0.17.4":       ollamaV0174Verdicts,
	"llama.cpp c2b1518fd": llamaCppVerdicts,
}

// conformanceModel is the model the suite runs with on the server: on
// Ollama the tiny model registered with a template that takes tools, on
// llama-server its one model (served with such a template).
func conformanceModel(id serverID, model string) string {
	if id.Kind == kindOllama {
		return toolsModel
	}
	return model
}

// TestConformanceVerdicts runs the builtin protocol suite against the
// server and checks each contract's verdict against what is pinned for
// the server and version it reports: a contract that starts or stops
// holding on a server version fails here, by name. A MUST that breaks is
// expected where pinned, so this test (not the suite's own exit status)
// is what fails CI.
func TestConformanceVerdicts(t *testing.T) {
	url, model := server(t)
	id := identify(t, url)
	want, ok := conformanceByServer[id.String()]
	require.True(t, ok, "no conformance verdicts pinned for %s", id)
	if os.Getenv(envAPIKey) == "" {
		// errors.wrong_api_key applies only to a server that requires a
		// key: CI serves llama-server with one, a local run may not.
		want = maps.Clone(want)
		want["errors.wrong_api_key"] = "skip"
		want["errors.missing_key"] = "skip"
	}
	w, err := workloads.Conformance()
	require.NoError(t, err, "the builtin suite loads")
	r, err := runner.New(t.Context(), runner.Config{URL: url, Model: conformanceModel(id, model), APIKey: os.Getenv(envAPIKey), RequestTimeout: 2 * time.Minute, NoScrape: true})
	require.NoError(t, err, "runner.New against %s", url)
	t.Cleanup(r.Close)

	seen := map[string]bool{}
	for _, c := range w.Cases {
		t.Run(c.ID, func(t *testing.T) {
			out := r.RunCase(t.Context(), w, c, 0, nil)
			got := out.Record.Contract
			require.NotNil(t, got, "contract %s has a verdict", c.ID)
			seen[got.Name] = true
			t.Attr("verdict", got.Verdict)
			exp, ok := want[got.Name]
			if !assert.True(t, ok, "contract %s (%s) has no verdict pinned for %s; it gave %s: %s", got.Name, got.Level, id, got.Verdict, got.Evidence) {
				return
			}
			assert.Contains(t, strings.Split(exp, "|"), got.Verdict, "%s: contract %s (%s): %s", id, got.Name, got.Level, got.Evidence)
		})
	}
	for name := range want {
		assert.True(t, seen[name], "contract %s is pinned for %s but the suite no longer has it", name, id)
	}
}
