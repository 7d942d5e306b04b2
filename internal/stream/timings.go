package stream

import (
	"fmt"
	"time"
)

// Timings are the per-request latency and throughput figures of one
// streamed completion. Durations are milliseconds, rates tokens/second.
type Timings struct {
	// TTFTms is the time to the first token-bearing chunk.
	TTFTms float64
	// TPOTms is the time per output token after the first.
	TPOTms float64
	// E2ELms is the time to the end of the stream.
	E2ELms float64
	// GenTPS is completion tokens per second between first and last token.
	GenTPS float64
	// PromptTPS is prompt tokens per second of TTFT.
	PromptTPS float64
}

// ComputeTimings ports the reference's compute_request_metrics, with one
// improvement to TPOT. All durations are offsets from the moment the request
// was sent, on one monotonic clock:
//
//   - first, last: arrival of the first and last token-bearing chunk. When
//     no token arrived pass first = last = end (the reference sets
//     t_first_token = t_end), which gives TTFT = E2EL and zero rates.
//   - end: end of the stream (or the failure).
//   - completionTokens: N, the completion tokens (usage.completion_tokens
//     when the server reported it, else the number of token-bearing chunks).
//   - promptTokens: usage.prompt_tokens, 0 when unknown.
//
// Results: TTFTms = first; E2ELms = end; TPOTms = (last − first)/(N − 1)
// when N > 1, else 0 — the reference takes the mean gap between chunks,
// which equals this when each chunk carries one token but overstates TPOT
// by the tokens-per-chunk factor when servers batch tokens; GenTPS = N /
// (last − first) in seconds, 0 when the span is 0; PromptTPS = promptTokens
// / first in seconds, 0 when first is 0. Pure and allocation-free.
func ComputeTimings(first, last, end time.Duration, completionTokens, promptTokens int) Timings {
	t := Timings{TTFTms: ms(first), E2ELms: ms(end)}
	span := last - first
	if completionTokens > 1 {
		t.TPOTms = ms(span) / float64(completionTokens-1)
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

// Reasons DecodeObservable gives (Result.DecodeTiming).
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
)

// MinTPOT is the shortest time per output token benchserve believes a
// stream's arrival times measure: 0.05 ms, 20,000 tokens per second for
// one request, several times what the fastest single-stream serving
// reaches. Two flushes of 100 buffered tokens 2 ms apart would otherwise
// claim 87,000 tokens/s.
const MinTPOT = 50 * time.Microsecond

// DecodeObservable reports whether the decode of a stream can be timed
// from its arrival times: it can when at least 2 token-bearing chunks
// arrived (chunks) and the span from the first to the last of them is at
// least MinDecodeSpan and the time per token it implies at least MinTPOT.
// It returns "" when it can, else the reason
// (DecodeNoTokens, DecodeSingleChunk, DecodeBurst or DecodeBatched) and a sentence for a
// person, e.g. "all 77 tokens arrived in one chunk"; tokens is the
// completion token count (usage, else chunks). TTFT and E2EL are always
// observable; tpot_ms, gen_tps and the chunk gaps are not when this
// returns a reason.
func DecodeObservable(chunks int, span time.Duration, tokens int) (reason, note string) {
	switch {
	case chunks == 0:
		return DecodeNoTokens, "no token arrived"
	case chunks == 1:
		return DecodeSingleChunk, fmt.Sprintf("all %d tokens arrived in one chunk", tokens)
	case span < MinDecodeSpan:
		return DecodeBurst, fmt.Sprintf("all %d tokens arrived in %d chunks within %.3f ms (less than %v): the arrival times measure the client's reads, not the server's decode",
			tokens, chunks, ms(span), MinDecodeSpan)
	case tokens >= 4*chunks && span < time.Duration(tokens-1)*MinTPOT:
		return DecodeBatched, fmt.Sprintf("%d tokens arrived in %d chunks over %.3f ms (more than %.0f tokens/s for one request): they came in batches, so the arrival times measure the batching, not the server's decode",
			tokens, chunks, ms(span), float64(time.Second)/float64(MinTPOT))
	}
	return "", ""
}
