package stream

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// overLimit reports whether the request counts as timed out: the policy
// timer fired and the request ended at or after its deadline. A stream
// that ended before the deadline keeps its own outcome even when the
// timer fired before ChatStream could stop it.
func (st *state) overLimit() bool {
	return st.policyFired.Load() && !st.deadline.IsZero() && !st.end.Before(st.deadline)
}

// finish fills the Result's derived fields at time end.
func (st *state) finish(end time.Time) {
	r := st.res
	if st.start.IsZero() {
		st.start = end
	}
	st.end = end
	e := end.Sub(st.start)
	first, last := st.first, st.last
	if !st.sawToken {
		first, last = e, e
	}
	n := r.TokenChunks
	r.PromptTokens, r.CompletionTokens = 0, r.TokenChunks
	if u := r.Usage; u != nil {
		r.PromptTokens, r.CompletionTokens = u.PromptTokens, u.CompletionTokens
		if u.CompletionTokens > 0 {
			n = u.CompletionTokens
		}
	}
	t := ComputeTimings(first, last, e, r.TokenChunks, n, r.PromptTokens)
	r.TTFTms, r.E2ELms, r.PromptTPS = t.TTFTms, t.E2ELms, t.PromptTPS
	r.RefTPOTms, r.RefGenTPS = t.TPOTms, t.GenTPS
	d := MeasureDecode(DecodeSpan{Chunks: r.TokenChunks, Span: last - first, Tokens: n,
		UsageTokens: r.Usage != nil && r.Usage.CompletionTokens > 0,
		ChunkUsage:  st.sawToken && st.firstUsage >= 0 && st.lastUsage >= 0,
		FirstUsage:  st.firstUsage, LastUsage: st.lastUsage,
		FirstPieces: st.firstPieces, Pieces: st.textPieces()})
	r.TPOTms, r.GenTPS, r.DecodeTokens, r.DecodeMethod = d.TPOTms, d.GenTPS, d.Tokens, d.Method
	r.DecodeTiming, r.DecodeNote = d.Reason, d.Note
	if r.DecodeTiming != "" {
		r.ITLms = nil
		if r.DecodeTiming != DecodeFewChunks {
			// The reference's figures over no span, or a burst's, are
			// not measurements either (0, or millions of tokens/s).
			r.RefTPOTms, r.RefGenTPS = math.NaN(), math.NaN()
		}
	}
	r.HasOutput = st.sawOutput
	if st.sawOutput {
		r.TTFOms = ms(st.firstOut)
	}
	slices.SortStableFunc(st.choices, func(a, b *choiceAcc) int { return cmp.Compare(a.index, b.index) })
	r.Choices = nil
	if len(st.choices) > 1 {
		r.Choices = make([]Choice, len(st.choices))
		for i := range st.choices {
			r.Choices[i] = st.choices[i].result()
		}
	}
	var c0 Choice
	if len(st.choices) > 0 {
		c0 = st.choices[0].result()
	}
	r.FinishReason = c0.FinishReason
	r.Content, r.Reasoning, r.Refusal = c0.Content, c0.Reasoning, c0.Refusal
	r.ContentTruncated, r.ReasoningTruncated = c0.ContentTruncated, c0.ReasoningTruncated
	r.ToolCalls = c0.ToolCalls
	r.ReasoningChunks = c0.ReasoningChunks
}

// result is the choice as a Choice.
func (a *choiceAcc) result() Choice {
	return Choice{
		Index: a.index, FinishReason: a.finish,
		Content: a.content.String(), Reasoning: a.reason.String(), Refusal: a.refusal.String(),
		ContentTruncated: a.cutContent || a.cutRf, ReasoningTruncated: a.cutReason,
		ToolCalls: a.tools.Calls(), ReasoningChunks: a.reasoningChunks,
	}
}

// appendBounded appends p to b while b stays within limit bytes, cutting
// on a rune boundary; it reports whether anything was dropped. A zero
// limit (a state built without a Client) means no limit.
func appendBounded(b *strings.Builder, p []byte, limit int) bool {
	if limit <= 0 || b.Len()+len(p) <= limit {
		b.Write(p)
		return false
	}
	room := limit - b.Len()
	if room <= 0 {
		return len(p) > 0
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	b.Write(p[:cut])
	return true
}
