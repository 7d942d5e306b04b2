package stream

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestMeasureDecode: the decode is timed over the tokens produced
// between the first and the last chunk, from per-chunk usage when both
// chunks carried it, else N·(k−1)/k from MinDecodeChunks chunks on.
func TestMeasureDecode(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name           string
		in             DecodeSpan
		tokens         float64
		method, reason string
	}{
		{"one token a chunk: N−1 tokens, the mean gap", DecodeSpan{Chunks: 101, Span: 100 * ms, Tokens: 101}, 100, DecodeByEstimate, ""},
		{"no usage at all: chunks are tokens", DecodeSpan{Chunks: 11, Span: 100 * ms, Tokens: 11}, 10, DecodeByEstimate, ""},
		{"4 equal chunks of 64", DecodeSpan{Chunks: 4, Span: 300 * ms, Tokens: 256}, 192, DecodeByEstimate, ""},
		{"3 chunks is enough for the estimate", DecodeSpan{Chunks: 3, Span: 200 * ms, Tokens: 192}, 128, DecodeByEstimate, ""},
		{"2 chunks without usage: few chunks", DecodeSpan{Chunks: 2, Span: 100 * ms, Tokens: 128}, 0, "", DecodeFewChunks},
		{"2 one-token chunks without usage: few chunks", DecodeSpan{Chunks: 2, Span: 10 * ms, Tokens: 2}, 0, "", DecodeFewChunks},
		{"the server counts one token a chunk: exact from 2 chunks", DecodeSpan{Chunks: 2, Span: 10 * ms, Tokens: 2, UsageTokens: true}, 1, DecodeOnePerChunk, ""},
		{"one token a chunk by the server's count", DecodeSpan{Chunks: 101, Span: 100 * ms, Tokens: 101, UsageTokens: true}, 100, DecodeOnePerChunk, ""},
		{"the server counts one more than the chunks: estimated", DecodeSpan{Chunks: 10, Span: 100 * ms, Tokens: 11, UsageTokens: true}, 9.9, DecodeByEstimate, ""},
		{"2 chunks, the server counts more: few chunks", DecodeSpan{Chunks: 2, Span: 100 * ms, Tokens: 3, UsageTokens: true}, 0, "", DecodeFewChunks},
		{"2 chunks with per-chunk usage: exact", DecodeSpan{Chunks: 2, Span: 100 * ms, Tokens: 128, ChunkUsage: true, FirstUsage: 64, LastUsage: 128}, 64, DecodeByUsage, ""},
		{"unequal chunks with usage: the count, not the estimate", DecodeSpan{Chunks: 3, Span: 100 * ms, Tokens: 100, ChunkUsage: true, FirstUsage: 1, LastUsage: 100}, 99, DecodeByUsage, ""},
		{"usage that does not grow falls back to the estimate", DecodeSpan{Chunks: 4, Span: 100 * ms, Tokens: 40, ChunkUsage: true, FirstUsage: 0, LastUsage: 0}, 30, DecodeByEstimate, ""},
		{"no tokens", DecodeSpan{}, 0, "", DecodeNoTokens},
		{"one chunk", DecodeSpan{Chunks: 1, Tokens: 64}, 0, "", DecodeSingleChunk},
		{"burst", DecodeSpan{Chunks: 5, Span: 14 * time.Microsecond, Tokens: 40}, 0, "", DecodeBurst},
		{"batched beats few chunks", DecodeSpan{Chunks: 2, Span: 2 * ms, Tokens: 200}, 0, "", DecodeBatched},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := MeasureDecode(tc.in)
			assert.Equal(t, tc.reason, d.Reason, "reason (note: %s)", d.Note)
			assert.Equal(t, tc.method, d.Method, "method")
			assert.InDelta(t, tc.tokens, d.Tokens, 1e-9, "decoded tokens")
			if tc.reason != "" {
				assert.NotEmpty(t, d.Note, "a reason has a note")
				assert.True(t, math.IsNaN(d.TPOTms) && math.IsNaN(d.GenTPS), "no rate with a reason: %v %v", d.TPOTms, d.GenTPS)
				return
			}
			assert.InDelta(t, float64(tc.in.Span)/float64(ms)/tc.tokens, d.TPOTms, 1e-9, "TPOT = span / tokens")
			assert.InDelta(t, tc.tokens/tc.in.Span.Seconds(), d.GenTPS, 1e-9, "gen_tps = tokens / span")
		})
	}
}

// TestMeasureDecodeEqualChunksUnbiased: k equal chunks of c tokens at a
// decode rate r arrive c/r apart; the reference's N/span reads
// r·k/(k−1), MeasureDecode reads r for every k ≥ MinDecodeChunks.
func TestMeasureDecodeEqualChunksUnbiased(t *testing.T) {
	const rate, per = 1000.0, 32 // tokens/s, tokens a chunk
	gap := time.Duration(per / rate * float64(time.Second))
	for k := MinDecodeChunks; k <= 16; k++ {
		span := time.Duration(k-1) * gap
		d := MeasureDecode(DecodeSpan{Chunks: k, Span: span, Tokens: k * per})
		assert.InDelta(t, rate, d.GenTPS, 1e-6, "k=%d: gen_tps", k)
		ref := ComputeTimings(0, span, span, k, k*per, 0)
		assert.InDelta(t, rate*float64(k)/float64(k-1), ref.GenTPS, 1e-6, "k=%d: the reference's bias", k)
	}
}
