package results

// Generator describes the generator a workload's requests came from
// (issue 27: --dataset-name and the workload file's "generator" object),
// recorded in the payload so a run can be reproduced: the same name,
// parameters and seed give byte-identical request bodies.
type Generator struct {
	// Name is the generator, as --dataset-name takes it: "random",
	// "prefix_repetition", "sharegpt", "jsonl", ...
	Name string `json:"name"`
	// Path is the input file (--dataset-path), "" for a synthetic one.
	Path string `json:"path,omitempty"`
	// Seed is the seed of every draw (--seed).
	Seed uint64 `json:"seed"`
	// NumPrompts is the number of requests generated (--num-prompts); 0
	// means as many as the input holds.
	NumPrompts int `json:"num_prompts"`
	// Params are the generator's parameters under vLLM's flag names with
	// underscores ("random_input_len": 512), defaults filled in.
	Params map[string]any `json:"params,omitempty"`
	// IgnoreEOS and MinTokens say how requests asked the server to reach
	// their output length: "ignore_eos": true, "min_tokens" = max_tokens.
	IgnoreEOS bool `json:"ignore_eos"`
	MinTokens bool `json:"min_tokens"`
	// TokenCounting names how the requested input lengths were counted:
	// "words" (single-token words: exact for the fixture and the builtin
	// vocabularies), "server_tokenize" (calibrated with the server's POST
	// /tokenize), "usage_calibration" (calibrated with usage.prompt_tokens
	// alone, as on Ollama), "builtin_o200k_base", ...
	TokenCounting string `json:"token_counting"`
	// TemplateTokens is the chat template's overhead the calibration
	// measured on the server, in tokens (usage.prompt_tokens of a prompt
	// less its text's count; the generators wrote texts that much
	// shorter); nil when the prompts were not calibrated.
	TemplateTokens *int `json:"template_tokens,omitempty"`
	// CalibrationRequests is how many requests the calibration sent
	// before the run (POST /tokenize or chat completions of max_tokens 1);
	// 0 without a calibration.
	CalibrationRequests int `json:"calibration_requests,omitempty"`
}

// Requested is what a generated request was built to have, kept in its
// record beside what the server reported (Metrics.PromptTokens,
// Metrics.CompletionTokens), so a reader sees both lengths.
type Requested struct {
	// InputTokens is the requested input length in tokens of the
	// messages' text (no chat template), counted as the payload's
	// generator token_counting says; 0 when nobody counted it.
	InputTokens int `json:"input_tokens"`
	// OutputTokens is the asked output length (max_tokens).
	OutputTokens int `json:"output_tokens"`
	// Group is the request's prefix group or conversation, "" for none.
	Group string `json:"group,omitempty"`
	// PrefixTokens is how many leading tokens the request shares by
	// construction with an earlier request of its group: the cached
	// prompt tokens a prefix cache should report.
	PrefixTokens int `json:"prefix_tokens,omitempty"`
	// Turn is the request's 0-based turn in its session (Group) for a
	// multi-turn ("sessions") request; nil for a single-turn one.
	Turn *int `json:"turn,omitempty"`
}
