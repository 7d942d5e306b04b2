package stream

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCountPieces(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"Hello", 1},
		{" world, how are", 4},
		{" you today?", 3},
		{"a b c", 3},
		{" d e f", 3},
		{`{"city": "Paris"}`, 6},
		{"get_weather", 3},
		{"in 2024", 2},
		{"\n\n", 1},
		{"    return x", 3},
		{"修复代码", 4},
		{" Zürich", 1},
	} {
		assert.Equal(t, tc.want, countPieces([]byte(tc.text)), "pieces of %q", tc.text)
	}
}

// TestSpeculativeDecodeByContent: the stream of a speculative
// decoder, 8 tokens in 3 chunks (1, 4 and 3 tokens) at 0.5, 0.6 and
// 0.7 s: 7 tokens came after the first chunk, so TPOT is 200/7 ≈ 28.6
// ms. Equal shares counted 16/3 and read 37.5 ms.
func TestSpeculativeDecodeByContent(t *testing.T) {
	t.Run("measure", func(t *testing.T) {
		texts := []string{"Hello", " world, how are", " you today?"}
		first, all := countPieces([]byte(texts[0])), 0
		for _, s := range texts {
			all += countPieces([]byte(s))
		}
		d := MeasureDecode(DecodeSpan{Chunks: 3, Span: 200 * time.Millisecond, Tokens: 8, UsageTokens: true, FirstPieces: first, Pieces: all})
		assert.Equal(t, DecodeByContent, d.Method, "apportioned by the chunks' text")
		assert.InEpsilon(t, 200.0/7, d.TPOTms, 0.10, "TPOT within 10%% of 28.6 ms (equal shares read 37.5)")
		assert.InEpsilon(t, 7.0, d.Tokens, 0.10, "about 7 tokens after the first chunk")
	})
	t.Run("stream", func(t *testing.T) {
		srv, _ := scriptServer(t,
			part{Delay: 500 * time.Millisecond, Data: content("spec", "Hello")},
			part{Delay: 600 * time.Millisecond, Data: content("spec", " world, how are")},
			part{Delay: 700 * time.Millisecond, Data: content("spec", " you today?") + usageEv(12, 8) + done})
		res, err := run(t, srv, Request{})
		require.NoError(t, err, "the stream succeeds")
		require.Equal(t, 3, res.TokenChunks, "three token-bearing chunks")
		span := sum(res.ITLms)
		assert.Equal(t, DecodeByContent, res.DecodeMethod, "apportioned by the chunks' text")
		assert.InEpsilon(t, 7.0, res.DecodeTokens, 0.10, "about 7 tokens after the first chunk")
		assert.InEpsilon(t, span/7, res.TPOTms, 0.10, "TPOT within 10%% of span/7 (28.6 ms for the scripted 200 ms span of %.1f ms)", span)
		t.Logf("span %.1f ms, TPOT %.2f ms (truth span/7 = %.2f), decode tokens %.3f", span, res.TPOTms, span/7, res.DecodeTokens)
	})
}

// toolArgs renders a chunk carrying one tool-call delta.
func toolArgs(id, name, args string) string {
	fn := map[string]any{"arguments": args}
	if name != "" {
		fn["name"] = name
	}
	tc := map[string]any{"index": 0, "function": fn}
	if id != "" {
		tc["id"], tc["type"] = id, "function"
	}
	b, _ := json.Marshal(map[string]any{"id": "tc", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{tc}}}}})
	return "data: " + string(b) + "\n\n"
}

// reasoning renders a chunk carrying reasoning_content.
func reasoning(text string) string {
	b, _ := json.Marshal(map[string]any{"id": "r", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"reasoning_content": text}}}})
	return "data: " + string(b) + "\n\n"
}

// TestDecodeByContentToolCallsAndReasoning: chunks that carry only
// tool-call arguments (the name on the first) or only reasoning are
// apportioned by that text: one piece a token here by construction, so
// the count is exact, where equal shares would miss it.
func TestDecodeByContentToolCallsAndReasoning(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		tokens int     // usage completion_tokens: one a piece
		after  float64 // tokens after the first chunk
	}{
		{"tool-call arguments", []string{
			toolArgs("call_1", "get_weather", `{"`),                    // get _ weather {"  : 4
			toolArgs("", "", `city": "`),                               // city ": "         : 3
			toolArgs("", "", `San Francisco, CA", "unit": "celsius"}`), // 11
		}, 18, 14},
		{"reasoning", []string{
			reasoning("Let"),                         // 1
			reasoning(" me think about the weather"), // 5
			reasoning(" in Paris."),                  // 3
		}, 9, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := make([]part, len(tc.chunks))
			for i, c := range tc.chunks {
				parts[i] = part{Delay: time.Duration(i) * 20 * time.Millisecond, Data: c}
			}
			parts[len(parts)-1].Data += usageEv(10, tc.tokens) + done
			srv, _ := scriptServer(t, parts...)
			res, err := run(t, srv, Request{})
			require.NoError(t, err, "the stream succeeds")
			require.Equal(t, len(tc.chunks), res.TokenChunks, "every chunk bears tokens")
			assert.Equal(t, DecodeByContent, res.DecodeMethod, "apportioned by the chunks' text")
			equal := float64(tc.tokens) * float64(len(tc.chunks)-1) / float64(len(tc.chunks))
			assert.InDelta(t, tc.after, res.DecodeTokens, 1e-9, "the tokens after the first chunk (equal shares: %.2f)", equal)
			assert.InDelta(t, sum(res.ITLms)/tc.after, res.TPOTms, 1e-9, "TPOT = span / the tokens after the first chunk")
		})
	}
}

// TestDecodeByContentFallsBack: without text to apportion by, with the
// server counting fewer tokens than chunks, or without usage, the tokens
// are shared equally; a content share is kept between k − 1 and N − 1.
func TestDecodeByContentFallsBack(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name   string
		in     DecodeSpan
		tokens float64
		method string
	}{
		{"no text", DecodeSpan{Chunks: 4, Span: 100 * ms, Tokens: 40, UsageTokens: true}, 30, DecodeByEstimate},
		{"fewer tokens than chunks", DecodeSpan{Chunks: 4, Span: 100 * ms, Tokens: 3, UsageTokens: true, FirstPieces: 1, Pieces: 10}, 2.25, DecodeByEstimate},
		{"no usage", DecodeSpan{Chunks: 4, Span: 100 * ms, Tokens: 4, FirstPieces: 1, Pieces: 10}, 3, DecodeByEstimate},
		{"a heavy first chunk: at least k − 1", DecodeSpan{Chunks: 4, Span: 100 * ms, Tokens: 40, UsageTokens: true, FirstPieces: 97, Pieces: 100}, 3, DecodeByContent},
		{"a light first chunk: at most N − 1", DecodeSpan{Chunks: 4, Span: 100 * ms, Tokens: 40, UsageTokens: true, FirstPieces: 1, Pieces: 1000}, 39, DecodeByContent},
		{"2 chunks: few chunks", DecodeSpan{Chunks: 2, Span: 100 * ms, Tokens: 40, UsageTokens: true, FirstPieces: 1, Pieces: 10}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := MeasureDecode(tc.in)
			assert.Equal(t, tc.method, d.Method, "method (reason %q)", d.Reason)
			assert.InDelta(t, tc.tokens, d.Tokens, 1e-9, "decoded tokens")
		})
	}
}
