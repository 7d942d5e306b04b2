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
// chat template adds its overhead. Nothing here calibrates that overhead
// yet (the generators build prompts by words, Method "words"); where a
// tokenizer endpoint and usage disagree, usage wins and the runner warns
// with both numbers (runner.Session.CheckTokenizer).
package tokens
