package stream

import (
	"fmt"
	"math"
	"time"
)

// Timings are the reference's per-request figures of one streamed
// completion (compute_request_metrics). Durations are milliseconds,
// rates tokens/second.
type Timings struct {
	// TTFTms is the time to the first token-bearing chunk.
	TTFTms float64
	// TPOTms is the reference's tpot_ms: the mean gap between
	// token-bearing chunks, (last − first)/(k − 1) for k chunks; 0 when
	// k < 2. It is a time per output token only when every chunk carries
	// one token (see MeasureDecode).
	TPOTms float64
	// E2ELms is the time to the end of the stream.
	E2ELms float64
	// GenTPS is the reference's gen_tps: completion tokens / (last −
	// first) in seconds, 0 when the span is 0. It counts the first
	// chunk's tokens over a span that did not produce them (see
	// MeasureDecode).
	GenTPS float64
	// PromptTPS is prompt tokens per second of TTFT.
	PromptTPS float64
}

// ComputeTimings ports the reference's compute_request_metrics. All
// durations are offsets from the moment the request was sent, on one
// monotonic clock:
//
//   - first, last: arrival of the first and last token-bearing chunk. When
//     no token arrived pass first = last = end (the reference sets
//     t_first_token = t_end), which gives TTFT = E2EL and zero rates.
//   - end: end of the stream (or the failure).
//   - chunks: k, the token-bearing chunks (the reference's token_times).
//   - completionTokens: N, the completion tokens (usage.completion_tokens
//     when the server reported it, else the number of token-bearing chunks).
//   - promptTokens: usage.prompt_tokens, 0 when unknown.
//
// Results: TTFTms = first; E2ELms = end; TPOTms = (last − first)/(k − 1)
// when k > 1, else 0 (the mean of the gaps, as the reference); GenTPS = N
// / (last − first) in seconds, 0 when the span is 0; PromptTPS =
// promptTokens / first in seconds, 0 when first is 0. benchserve records
// these as ref_tpot_ms and ref_gen_tps; its tpot_ms and gen_tps come from
// MeasureDecode. Pure and allocation-free.
func ComputeTimings(first, last, end time.Duration, chunks, completionTokens, promptTokens int) Timings {
	t := Timings{TTFTms: ms(first), E2ELms: ms(end)}
	span := last - first
	if chunks > 1 {
		t.TPOTms = ms(span) / float64(chunks-1)
	}
	if span > 0 {
		t.GenTPS = float64(completionTokens) / span.Seconds()
	}
	if first > 0 {
		t.PromptTPS = float64(promptTokens) / first.Seconds()
	}
	return t
}

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MinDecodeSpan is the shortest span, from the first to the last
// token-bearing chunk, over which benchserve reports decode rates
// (tpot_ms, gen_tps) and chunk gaps (itl_ms). A chunk's arrival time is
// when the network read that completed it returned (chunks delivered by
// one read share it), not when it was parsed. Below it the arrival times
// measure how fast the client read a buffer that was already there (a
// buffering proxy, multi-token prediction, a whole answer in one write, a
// descheduled client), not how fast the server decoded: 77 tokens read
// 14 µs apart would claim 5,500,000 tokens/s. One millisecond is above the
// time a client needs to parse a few hundred buffered chunks and below the
// decode time of any two real tokens.
const MinDecodeSpan = time.Millisecond

// MinDecodeChunks is the fewest token-bearing chunks over which the
// decode is estimated without per-chunk token counts (DecodeByContent,
// DecodeByEstimate): 3. The equal-share estimate assumes the first chunk
// carried N/k tokens, which is 1/(k − 1) of the N·(k − 1)/k it counts: at
// k = 2 the count is that assumption and nothing else (and a 2-chunk
// stream is typically a tool call's name and then all of its arguments,
// where it is off by up to 2×); from 3 on the assumed part is at most
// half of the count and shrinks as 1/k. Apportioning by content rests on
// the same kind of assumption (a piece of text is a token), so it keeps
// the same floor. When the count is known (DecodeByUsage,
// DecodeOnePerChunk) 2 chunks suffice.
const MinDecodeChunks = 3

// Reasons MeasureDecode and DecodeObservable give (Result.DecodeTiming).
const (
	// DecodeNoTokens: no token-bearing chunk arrived.
	DecodeNoTokens = "no_tokens"
	// DecodeSingleChunk: every token arrived in one chunk.
	DecodeSingleChunk = "single_chunk"
	// DecodeBurst: two or more token-bearing chunks arrived within less
	// than MinDecodeSpan.
	DecodeBurst = "burst"
	// DecodeBatched: the span is longer than MinDecodeSpan, but the
	// tokens came several to a chunk (4 or more on average) and imply a
	// time per output token below MinTPOT: a few large batches (a
	// buffering proxy flushing twice), not the server's decode.
	DecodeBatched = "batched"
	// DecodeFewChunks: fewer than MinDecodeChunks token-bearing chunks
	// and no count of their tokens (DecodeByUsage, DecodeOnePerChunk),
	// so the tokens produced between the first and the last chunk cannot
	// be estimated.
	DecodeFewChunks = "few_chunks"
)

// Methods MeasureDecode counts the decoded tokens by (Result.DecodeMethod).
const (
	// DecodeByUsage: the first and last token-bearing chunks carried
	// usage (vLLM's stream_options.continuous_usage_stats), whose
	// cumulative completion_tokens differ by exactly the tokens produced
	// between them.
	DecodeByUsage = "usage"
	// DecodeOnePerChunk: the server's usage.completion_tokens N equals
	// the token-bearing chunks k, so (no chunk carrying fewer than one)
	// every chunk carried one token and N − 1 came after the first.
	DecodeOnePerChunk = "one_per_chunk"
	// DecodeByContent: the server's N completion tokens apportioned
	// among the k token-bearing chunks by the text each carried (word
	// pieces of content, reasoning, refusal and tool-call names and
	// arguments, see DecodeSpan.Pieces): N·(P − P₁)/P for P pieces of
	// which the first chunk carried P₁, kept between k − 1 (every later
	// chunk carried a token) and N − 1 (so did the first). What a
	// speculative decoder's chunks of 1, 4 and 3 tokens need, where
	// equal shares would count 16/3 instead of 7.
	DecodeByContent = "content"
	// DecodeByEstimate: N·(k − 1)/k for N completion tokens in k
	// token-bearing chunks, every chunk but the first assumed to carry
	// its equal share: when the chunks carried no text to apportion by,
	// the server's N is below k, or there is no usage (N is then the
	// chunk count and the estimate N − 1).
	DecodeByEstimate = "estimate"
)

// MinTPOT is the shortest time per output token benchserve believes a
// stream's arrival times measure: 0.05 ms, 20,000 tokens per second for
// one request, several times what the fastest single-stream serving
// reaches. Two flushes of 100 buffered tokens 2 ms apart would otherwise
// claim 87,000 tokens/s.
const MinTPOT = 50 * time.Microsecond

// DecodeSpan is what MeasureDecode needs to know about one stream.
type DecodeSpan struct {
	// Chunks is k, the token-bearing chunks.
	Chunks int
	// Span runs from the arrival of the first token-bearing chunk to the
	// arrival of the last.
	Span time.Duration
	// Tokens is N, the completion tokens (usage.completion_tokens, else
	// Chunks); UsageTokens reports that it is the server's count.
	Tokens      int
	UsageTokens bool
	// ChunkUsage reports that the first and the last token-bearing chunk
	// each carried usage; FirstUsage and LastUsage are their
	// completion_tokens, cumulative counts that include the chunk's own
	// tokens (vLLM's continuous_usage_stats).
	ChunkUsage            bool
	FirstUsage, LastUsage int
	// Pieces is the word pieces of text (countPieces) all token-bearing
	// chunks carried, each chunk counted as at least 1, and FirstPieces
	// the first chunk's; Pieces is 0 when no chunk carried any text
	// (then nothing apportions the tokens and equal shares are assumed).
	FirstPieces, Pieces int
}

// Decode is the decode measurement of one stream.
type Decode struct {
	// Tokens is the tokens produced between the first and the last
	// token-bearing chunk: LastUsage − FirstUsage (DecodeByUsage), N − 1
	// (DecodeOnePerChunk), N·(P − P₁)/P (DecodeByContent), else
	// N·(k − 1)/k (DecodeByEstimate). 0 when Reason is set.
	Tokens float64
	// Method is DecodeByUsage, DecodeOnePerChunk, DecodeByContent or
	// DecodeByEstimate; "" when Reason is set.
	Method string
	// TPOTms is Span/Tokens in ms, GenTPS Tokens/Span in tokens/s: the
	// decode's time per output token and rate. NaN when Reason is set.
	TPOTms, GenTPS float64
	// Reason is "" when the decode was timed, else why not
	// (DecodeNoTokens, DecodeSingleChunk, DecodeBurst, DecodeBatched or
	// DecodeFewChunks); Note says it for a person, e.g. "all 77 tokens
	// arrived in one chunk".
	Reason, Note string
}

// MeasureDecode times a stream's decode from the tokens produced
// between its first and its last token-bearing chunk, so that neither
// the first chunk's tokens (produced before the span began, in the
// prefill) nor the chunking bias the rate: the reference's N/span
// overstates the rate by k/(k − 1) for k equal chunks (2× for a tool call
// in two chunks), and a multi-token (speculative) decoder's chunks the
// same way. The tokens are counted from per-chunk usage when the first
// and last token-bearing chunks carried it (LastUsage > FirstUsage), or
// known to be N − 1 when the server's N equals the chunk count k, else
// apportioned by the text the chunks carried (DecodeByContent: the
// server's N shared by word pieces), else estimated as N·(k − 1)/k
// (equal shares); the last two need MinDecodeChunks chunks. For a steady
// stream of one token a chunk all give N − 1: TPOT is the mean chunk gap
// and GenTPS its inverse; for k chunks of equal text the content share is
// the equal share.
//
// It returns a Reason, with NaN rates, when the arrival times cannot
// time the decode, checked in this order: no token-bearing chunk; one
// chunk; a span below MinDecodeSpan; 4 or more tokens a chunk at a time
// per token below MinTPOT (batched); fewer than MinDecodeChunks chunks
// without per-chunk usage.
func MeasureDecode(s DecodeSpan) Decode {
	d := Decode{TPOTms: math.NaN(), GenTPS: math.NaN()}
	fail := func(reason, note string) Decode {
		d.Reason, d.Note = reason, note
		return d
	}
	switch {
	case s.Chunks <= 0:
		return fail(DecodeNoTokens, "no token arrived")
	case s.Chunks == 1:
		return fail(DecodeSingleChunk, fmt.Sprintf("all %d tokens arrived in one chunk", s.Tokens))
	case s.Span < MinDecodeSpan:
		return fail(DecodeBurst, fmt.Sprintf("all %d tokens arrived in %d chunks within %.3f ms (less than %v): the arrival times measure the client's reads, not the server's decode",
			s.Tokens, s.Chunks, ms(s.Span), MinDecodeSpan))
	}
	n := s.Tokens
	if n <= 0 {
		n = s.Chunks
	}
	tokens, method := float64(n)*float64(s.Chunks-1)/float64(s.Chunks), DecodeByEstimate
	switch {
	case s.ChunkUsage && s.LastUsage > s.FirstUsage:
		tokens, method = float64(s.LastUsage-s.FirstUsage), DecodeByUsage
	case s.UsageTokens && s.Tokens == s.Chunks:
		tokens, method = float64(n-1), DecodeOnePerChunk
	case s.UsageTokens && s.Tokens > s.Chunks && s.Pieces > 0 && s.FirstPieces <= s.Pieces:
		share := float64(s.Pieces-s.FirstPieces) / float64(s.Pieces)
		tokens = min(max(float64(n)*share, float64(s.Chunks-1)), float64(n-1))
		method = DecodeByContent
	}
	if n >= 4*s.Chunks && float64(s.Span) < tokens*float64(MinTPOT) {
		return fail(DecodeBatched, fmt.Sprintf("%d tokens arrived in %d chunks over %.3f ms (more than %.0f tokens/s for one request): they came in batches, so the arrival times measure the batching, not the server's decode",
			n, s.Chunks, ms(s.Span), float64(time.Second)/float64(MinTPOT)))
	}
	if (method == DecodeByEstimate || method == DecodeByContent) && s.Chunks < MinDecodeChunks {
		return fail(DecodeFewChunks, fmt.Sprintf("%d tokens arrived in %d chunks, fewer than %d, without per-chunk usage: the tokens produced after the first chunk cannot be told",
			n, s.Chunks, MinDecodeChunks))
	}
	d.Tokens, d.Method = tokens, method
	d.TPOTms = ms(s.Span) / tokens
	d.GenTPS = tokens / s.Span.Seconds()
	return d
}

// DecodeObservable reports whether the decode of a stream without
// per-chunk usage can be timed from its arrival times: MeasureDecode's
// Reason and Note for chunks token-bearing chunks spanning span with
// tokens completion tokens (counted as the chunks, not reported by the
// server). It returns "" when it
// can. TTFT and E2EL are always observable; tpot_ms, gen_tps and the
// chunk gaps are not when this returns a reason.
func DecodeObservable(chunks int, span time.Duration, tokens int) (reason, note string) {
	d := MeasureDecode(DecodeSpan{Chunks: chunks, Span: span, Tokens: tokens})
	return d.Reason, d.Note
}
