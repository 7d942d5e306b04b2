// Package tokens counts tokens the way a server counts them, without
// Python or downloads (issue 27 item 1). A Counter says how many tokens a
// text has and, through Method, which way it counted:
//
//   - the server's own tokenizer endpoint, POST /tokenize in vLLM's and
//     SGLang's shape ({"model", "prompt"} → {"count", "tokens"}) or
//     llama.cpp's ({"content"} → {"tokens"}): NewServer;
//   - a builtin pure-Go BPE tokenizer (o200k_base, cl100k_base; package
//     tokens/builtin, which embeds the vocabularies and so is linked only
//     by the CLI or a caller that imports it);
//   - words: one token per whitespace-separated word, exact for the
//     fixture's tokenizer and for the prompts this project builds (see
//     package datasets), an estimate elsewhere.
//
// A chat request's usage.prompt_tokens is more than the text's count: the
// chat template adds its overhead. Calibrator measures both on the server
// (Calibrate): each candidate word's count as it sits in a text, from
// POST /tokenize when the server answers it (Server) or else from
// usage.prompt_tokens of chat requests with max_tokens 1 (Usage, the way
// on Ollama), found by halving batches of words; the template's tokens;
// and that texts of the kept words add up, with an error giving both
// numbers when they do not. package datasets builds prompts from the
// Calibration (datasets.CalibratedPrompter) and runner.Runner.Calibrate
// runs it before a generated run. Where a tokenizer endpoint and usage
// disagree, usage wins and the runner warns with both numbers
// (runner.Session.CheckTokenizer).
package tokens
