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

// usageMaxTokens judges usage.max_tokens: completion_tokens is at most
// the request's max_tokens.
func (r *contractRun) usageMaxTokens(st *streamed) Outcome {
	u, o, ok := needUsage(st)
	if !ok {
		return o
	}
	limit := r.limit("max_tokens")
	if u.CompletionTokens > limit {
		return failed(st.sentText(), st.usageText(), "completion_tokens %d > max_tokens %d", u.CompletionTokens, limit)
	}
	return pass("completion_tokens %d <= max_tokens %d", u.CompletionTokens, limit)
}

// usageLengthFinish judges usage.length_finish: an answer cut at
// max_tokens says finish_reason "length" in every choice; an answer
// that ended by itself is a skip.
func (r *contractRun) usageLengthFinish(st *streamed) Outcome {
	res := st.res
	limit := r.limit("max_tokens")
	n := res.TokenChunks
	if res.Usage != nil {
		n = res.Usage.CompletionTokens
	}
	if n < limit && res.FinishReason != "length" {
		return skip("the answer ended by itself after %d tokens (max_tokens %d): nothing was cut", n, limit)
	}
	for _, f := range finishes(res) {
		if f != "length" {
			return failed(st.sentText(), st.finishText(), "the answer reached max_tokens %d but finish_reason is %q", limit, f)
		}
	}
	return pass(`cut at max_tokens %d with finish_reason "length"`, limit)
}

// needUsage is the stream's usage, or the failing outcome of a stream
// that sent none (ok false).
func needUsage(st *streamed) (*results.Usage, Outcome, bool) {
	if st.res.Usage == nil {
		return nil, failed("", st.errText(), "no usage came (stream_options.include_usage was sent)"), false
	}
	return st.res.Usage, Outcome{}, true
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
