package stream

import "time"

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
