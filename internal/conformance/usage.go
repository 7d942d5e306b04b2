package conformance

import (
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// usageTotal judges usage.total: total_tokens is prompt_tokens plus
// completion_tokens.
func usageTotal(st *streamed) Outcome {
	u, o, ok := needUsage(st)
	if !ok {
		return o
	}
	if u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		return failed(st.sentText(), st.usageText(), "total_tokens %d != prompt_tokens %d + completion_tokens %d", u.TotalTokens, u.PromptTokens, u.CompletionTokens)
	}
	return pass("total_tokens %d = %d + %d", u.TotalTokens, u.PromptTokens, u.CompletionTokens)
}

// usageMaxTokens judges usage.max_tokens: completion_tokens, and the
// token chunks that came, are at most the request's max_tokens.
func (r *contractRun) usageMaxTokens(st *streamed) Outcome {
	u, o, ok := needUsage(st)
	if !ok {
		return o
	}
	limit := r.limit("max_tokens")
	if u.CompletionTokens > limit {
		return failed(st.sentText(), st.usageText(), "completion_tokens %d > max_tokens %d", u.CompletionTokens, limit)
	}
	// A chunk carries at least one token: more token chunks than the
	// limit is more tokens, whatever usage says.
	if n := st.res.TokenChunks; n > limit {
		return failed(st.sentText(), st.usageText(), "%d token chunks came for max_tokens %d (usage says completion_tokens %d)", n, limit, u.CompletionTokens)
	}
	return pass("completion_tokens %d <= max_tokens %d (%d token chunks)", u.CompletionTokens, limit, st.res.TokenChunks)
}

// usageLengthFinish judges usage.length_finish: an answer cut at
// max_tokens (by usage or by its token chunks, whichever is more) says
// finish_reason "length" in every choice; an answer that ended by itself
// short of it is a skip.
func (r *contractRun) usageLengthFinish(st *streamed) Outcome {
	res := st.res
	limit := r.limit("max_tokens")
	n := generated(res)
	if n < limit && res.FinishReason != "length" {
		return skip("the answer ended by itself after %d tokens (max_tokens %d): nothing was cut", n, limit)
	}
	if c := res.TokenChunks; res.FinishReason == "stop" && c < limit && res.Usage != nil && res.Usage.CompletionTokens == limit {
		// Ollama counts the end-of-sequence token it sampled last in
		// completion_tokens: limit-1 tokens and EOS end by themselves.
		return skip("usage says completion_tokens %d = max_tokens, but %d token chunks came and finish_reason is \"stop\": the last token counted may be the end-of-sequence token (as Ollama counts it), nothing shows a cut", limit, c)
	}
	for _, f := range finishes(res) {
		if f != "length" {
			return failed(st.sentText(), st.finishText(), "the answer reached max_tokens %d but finish_reason is %q", limit, nm(f))
		}
	}
	return pass(`cut at max_tokens %d with finish_reason "length"`, limit)
}

// needUsage is the stream's usage, or the failing outcome of a stream
// that sent none, or usage that cannot be true (all zero, or no
// completion token while token chunks came) (ok false).
func needUsage(st *streamed) (*results.Usage, Outcome, bool) {
	u := st.res.Usage
	if u == nil {
		return nil, failed("", st.errText(), "no usage came (stream_options.include_usage was sent)"), false
	}
	if u.PromptTokens == 0 && u.CompletionTokens == 0 && u.TotalTokens == 0 {
		return nil, failed(st.sentText(), st.usageText(), "usage is all zero: every request has a prompt"), false
	}
	if u.CompletionTokens == 0 && st.res.TokenChunks > 0 {
		return nil, failed(st.sentText(), st.usageText(), "usage says completion_tokens 0 while %d token chunks came", st.res.TokenChunks), false
	}
	return u, Outcome{}, true
}

// generated is how many tokens the answer holds at least: usage's
// completion_tokens or the token chunks that came, whichever is more (a
// chunk carries one token or more; usage may be missing or false).
func generated(res *stream.Result) int {
	n := res.TokenChunks
	if res.Usage != nil {
		n = max(n, res.Usage.CompletionTokens)
	}
	return n
}

// finishes is the finish_reason of every choice of the answer.
func finishes(res *stream.Result) []string {
	if len(res.Choices) == 0 {
		return []string{res.FinishReason}
	}
	out := make([]string, len(res.Choices))
	for i, c := range res.Choices {
		out[i] = c.FinishReason
	}
	return out
}
