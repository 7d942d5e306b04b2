package conformance

import (
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
)

// maxCompletionTokens judges limits.max_completion_tokens: the answer
// holds at most max_completion_tokens tokens (usage's count, else the
// token chunks). How a cut answer ends is usage.length_finish's.
func (r *contractRun) maxCompletionTokens(st *streamed) Outcome {
	res := st.res
	limit := r.limit("max_completion_tokens")
	n, what := res.TokenChunks, "token chunks"
	if res.Usage != nil {
		n, what = res.Usage.CompletionTokens, "completion_tokens"
	}
	if n > limit {
		return failed(st.sentText(), st.usageText(), "%s %d > max_completion_tokens %d", what, n, limit)
	}
	return pass("%s %d <= max_completion_tokens %d (finish_reason %q)", what, n, limit, nm(res.FinishReason))
}

// stopSequence judges limits.stop: the content holds no stop string and
// the answer ends with finish_reason "stop"; an answer cut at max_tokens
// first is a skip, but "length" short of max_tokens is a failure.
func (r *contractRun) stopSequence(st *streamed) Outcome {
	res := st.res
	stops := contract.StopStrings(r.in.ExtraBody["stop"])
	if len(stops) == 0 {
		return failed("", "", "the case sends no stop sequence (extra_body.stop)")
	}
	for _, s := range stops {
		if strings.Contains(res.Content, s) {
			return failed(st.sentText(), "content: "+contract.Cut(res.Content, EvidenceRunes), "the content holds the stop string %q", s)
		}
	}
	if res.FinishReason == "length" {
		limit := r.limit("max_tokens")
		if n := generated(res); n < limit {
			return failed(st.sentText(), st.finishText(), `finish_reason "length" after %d of max_tokens %d tokens: the answer was not cut at max_tokens (a stop sequence ends it with "stop")`, n, limit)
		}
		return skip("the answer reached max_tokens %d before any stop sequence came (content: %s)", limit, contract.Cut(res.Content, 80))
	}
	if res.FinishReason != "stop" {
		return failed(st.sentText(), st.finishText(), "finish_reason is %q", nm(res.FinishReason))
	}
	return pass(`content stops before %q, finish_reason "stop"`, stops[0])
}

// limit is the token limit the request sent in field (max_tokens or
// max_completion_tokens): Protocol.Body's, else the case's max_tokens.
func (r *contractRun) limit(field string) int {
	if n, ok := contract.AsInt(r.s.Body[field]); ok {
		return n
	}
	if r.in.MaxTokens > 0 {
		return r.in.MaxTokens
	}
	return 256
}

// intParam is the integer the request sent as key (Protocol.Body's,
// else the case's extra_body), else def.
func (r *contractRun) intParam(key string, def int) int {
	if n, ok := contract.AsInt(r.s.Body[key]); ok {
		return n
	}
	if n, ok := contract.AsInt(r.in.ExtraBody[key]); ok {
		return n
	}
	return def
}
