package stream

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// choiceEv is one chunk of choice idx carrying text in key (content,
// refusal, reasoning_content) and an optional finish reason.
func choiceEv(idx int, key, text, finish string) string {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	return ev(`{"id":"n3","choices":[{"index":` + string(rune('0'+idx)) + `,"delta":{"` + key + `":"` + text + `"},"finish_reason":` + fr + `}]}`)
}

// TestChoicesAssembledByIndex: an n = 3 stream (one choice per chunk,
// interleaved, as OpenAI sends it) gives three answers, not one glued
// string; the first choice fills the reference fields.
func TestChoicesAssembledByIndex(t *testing.T) {
	var parts []string
	for _, w := range []string{"one", " two", " three"} {
		for i := range 3 {
			parts = append(parts, choiceEv(i, "content", "abc"[i:i+1]+w, ""))
		}
	}
	parts = append(parts, choiceEv(0, "content", "", "stop"), choiceEv(1, "content", "", "length"), choiceEv(2, "content", "", "stop"), done)
	srv, _ := scriptServer(t, whole(parts...)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "an n = 3 stream must succeed")
	assert.Equal(t, "aonea twoa three", res.Content, "choice 0 alone is the record's content")
	assert.Equal(t, "stop", res.FinishReason, "choice 0's finish reason")
	require.Len(t, res.Choices, 3, "all three choices kept")
	for i, want := range []string{"aonea twoa three", "boneb twob three", "conec twoc three"} {
		assert.Equal(t, i, res.Choices[i].Index, "choices sorted by index")
		assert.Equal(t, want, res.Choices[i].Content, "choice %d assembled from its own chunks", i)
	}
	assert.Equal(t, "length", res.Choices[1].FinishReason, "each choice keeps its own finish reason")
	assert.Equal(t, 9, res.TokenChunks, "every choice's chunks carry tokens")
}

// TestSeveralChoicesInOneChunk: a server may put every choice in each
// chunk (the slow decode path); they are still split by index.
func TestSeveralChoicesInOneChunk(t *testing.T) {
	srv, _ := scriptServer(t, whole(
		ev(`{"choices":[{"index":1,"delta":{"content":"B"}},{"index":0,"delta":{"content":"A"}}]}`),
		ev(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"},{"index":1,"delta":{"content":"b"},"finish_reason":"stop"}]}`),
		done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "stream must succeed")
	assert.Equal(t, "Aa", res.Content, "choice 0")
	require.Len(t, res.Choices, 2, "two choices")
	assert.Equal(t, "Bb", res.Choices[1].Content, "choice 1")
	assert.Equal(t, 2, res.TokenChunks, "a chunk counts once however many choices it carries")
}

// TestRefusalIsTheAnswer: delta.refusal is assembled and timed like
// content (TTFT, TTFO, output), not dropped.
func TestRefusalIsTheAnswer(t *testing.T) {
	srv, _ := scriptServer(t,
		part{Delay: 0, Data: ev(`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":""}}]}`)},
		part{Delay: 30 * time.Millisecond, Data: ev(`{"choices":[{"index":0,"delta":{"refusal":"I'm sorry,"}}]}`)},
		part{Delay: 60 * time.Millisecond, Data: ev(`{"choices":[{"index":0,"delta":{"refusal":" I can't"}}]}`)},
		part{Delay: 90 * time.Millisecond, Data: ev(`{"choices":[{"index":0,"delta":{"refusal":" help with that."}}]}`)},
		part{Delay: 120 * time.Millisecond, Data: ev(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`) + usageEv(9, 10) + done},
	)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "a refusal is a successful stream")
	assert.Equal(t, "I'm sorry, I can't help with that.", res.Refusal, "refusal assembled")
	assert.Equal(t, "", res.Content, "content stays empty")
	assert.True(t, res.HasOutput, "a refusal is output")
	assert.GreaterOrEqual(t, res.TTFTms, 30.0, "TTFT at the first refusal chunk")
	assert.Less(t, res.TTFTms, res.E2ELms, "TTFT is not the whole request time")
	assert.Equal(t, res.TTFTms, res.TTFOms, "TTFO at the first refusal chunk")
	assert.Equal(t, 3, res.TokenChunks, "three refusal chunks")
	assert.Empty(t, res.DecodeTiming, "3 chunks 30 ms apart: observable")
	assert.False(t, math.IsNaN(res.GenTPS), "gen_tps measured")
	assert.Greater(t, res.GenTPS, 0.0, "gen_tps measured")
}

// TestReasoningChunksAndTokens: reasoning chunks are counted and the
// server's reasoning token count is kept with usage.
func TestReasoningChunksAndTokens(t *testing.T) {
	srv, _ := scriptServer(t, whole(
		ev(`{"choices":[{"delta":{"reasoning_content":"hm"}}]}`),
		ev(`{"choices":[{"delta":{"reasoning":"m"}}]}`),
		ev(`{"choices":[{"delta":{},"finish_reason":"length"}]}`),
		ev(`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"completion_tokens_details":{"reasoning_tokens":2}}}`),
		done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "stream must succeed")
	assert.Equal(t, "hmm", res.Reasoning, "reasoning")
	assert.Equal(t, 2, res.ReasoningChunks, "two reasoning chunks")
	require.NotNil(t, res.Usage.CompletionTokensDetails, "details kept")
	require.NotNil(t, res.Usage.CompletionTokensDetails.ReasoningTokens, "reasoning tokens kept")
	assert.Equal(t, 2, *res.Usage.CompletionTokensDetails.ReasoningTokens, "reasoning tokens")
}

// TestCachedPromptTokens: the prompt tokens the server served from its
// cache (usage.prompt_tokens_details.cached_tokens) are kept, a reported 0
// apart from no report.
func TestCachedPromptTokens(t *testing.T) {
	for _, tc := range []struct {
		usage string
		want  *int
	}{
		{`{"prompt_tokens":600,"completion_tokens":1,"total_tokens":601,"prompt_tokens_details":{"cached_tokens":512}}`, idx(512)},
		{`{"prompt_tokens":600,"completion_tokens":1,"total_tokens":601,"prompt_tokens_details":{"cached_tokens":0}}`, idx(0)},
		{`{"prompt_tokens":600,"completion_tokens":1,"total_tokens":601,"prompt_tokens_details":{}}`, nil},
		{`{"prompt_tokens":600,"completion_tokens":1,"total_tokens":601}`, nil},
	} {
		srv, _ := scriptServer(t, whole(
			ev(`{"choices":[{"delta":{"content":"a"}}]}`),
			ev(`{"choices":[{"delta":{},"finish_reason":"stop"}]}`),
			ev(`{"choices":[],"usage":`+tc.usage+`}`),
			done)...)
		res, err := run(t, srv, Request{})
		require.NoError(t, err, "stream must succeed")
		require.NotNil(t, res.Usage, "usage kept")
		var got *int
		if d := res.Usage.PromptTokensDetails; d != nil {
			got = d.CachedTokens
		}
		assert.Equal(t, tc.want, got, "cached tokens of %s", tc.usage)
	}
}

func TestDecodeObservable(t *testing.T) {
	for _, tc := range []struct {
		chunks, tokens int
		span           time.Duration
		reason, note   string
	}{
		{0, 0, 0, DecodeNoTokens, "no token arrived"},
		{1, 77, 0, DecodeSingleChunk, "all 77 tokens arrived in one chunk"},
		{5, 40, 14 * time.Microsecond, DecodeBurst, "all 40 tokens arrived in 5 chunks within 0.014 ms (less than 1ms): the arrival times measure the client's reads, not the server's decode"},
		{5, 40, MinDecodeSpan - 1, DecodeBurst, ""},
		{2, 2, MinDecodeSpan, DecodeFewChunks, "2 tokens arrived in 2 chunks, fewer than 3, without per-chunk usage: the tokens produced after the first chunk cannot be told"},
		{3, 3, MinDecodeSpan, "", ""},
		{300, 300, time.Second, "", ""},
	} {
		reason, note := DecodeObservable(tc.chunks, tc.span, tc.tokens)
		assert.Equal(t, tc.reason, reason, "reason for %d chunks over %v", tc.chunks, tc.span)
		if tc.note != "" || tc.reason == "" {
			assert.Equal(t, tc.note, note, "note for %d chunks over %v", tc.chunks, tc.span)
		}
	}
}

// TestFastDecoderReadsIndexAndRefusal: the fast path keeps the choice
// index and the refusal (the slow path is checked against it by
// TestFastDecoderAgreesWithEncodingJSON).
func TestFastDecoderReadsIndexAndRefusal(t *testing.T) {
	fast, ok, slow, err := decodeBoth(t, []byte(`{"choices":[{"index":2,"delta":{"refusal":"no"},"finish_reason":null}]}`))
	require.True(t, ok, "fast path")
	require.NoError(t, err, "slow path")
	assert.Equal(t, 2, fast.index, "index")
	assert.Equal(t, "no", string(fast.refusal), "refusal")
	assert.Equal(t, slow, fast, "both paths agree")
}
