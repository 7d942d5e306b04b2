package serverinfo

import "context"

// ContextLength returns the context length, in tokens, that GET
// /v1/models says model has: vLLM's and SGLang's "max_model_len",
// llama.cpp's "meta.n_ctx_train", or a "context_length" (LM Studio,
// OpenRouter); ok is false when the server does not say (Ollama) or the
// endpoint did not answer. With model "" or not listed, the first entry
// is read (as DetectModel does).
func (p *Prober) ContextLength(ctx context.Context, model string) (n int, ok bool) {
	data, _, found := p.getJSON(ctx, "/v1/models")
	if !found {
		return 0, false
	}
	entry := modelEntry(data, model)
	if entry == nil {
		return 0, false
	}
	candidates := []any{entry["max_model_len"], entry["context_length"]}
	if meta, isObj := entry["meta"].(map[string]any); isObj {
		candidates = append(candidates, meta["n_ctx_train"])
	}
	for _, v := range candidates {
		if f, isNum := v.(float64); isNum && f >= 1 && f < 1<<31 {
			return int(f), true
		}
	}
	return 0, false
}
