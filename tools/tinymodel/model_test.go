package main

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/ollama/ollama/fs/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// decodeFile writes the model to a temp dir and decodes it back.
func decodeFile(t *testing.T) (*ggml.GGML, *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub", "tiny.gguf")
	require.NoError(t, WriteFile(path), "WriteFile must succeed")
	f, err := os.Open(path)
	require.NoError(t, err, "open written model")
	t.Cleanup(func() { f.Close() })
	g, _, err := ggml.Decode(f, -1)
	require.NoError(t, err, "ggml.Decode must read the written file back")
	return g, f
}

func TestWriteFileDecodesWithLlamaMetadata(t *testing.T) {
	g, f := decodeFile(t)
	kv := g.KV()
	v := NewVocab()

	assert.Equal(t, "llama", kv.Architecture(), "general.architecture")
	assert.Equal(t, uint64(BlockCount), kv.BlockCount(), "llama.block_count")
	assert.Equal(t, uint64(EmbeddingLength), kv.EmbeddingLength(), "llama.embedding_length")
	assert.Equal(t, uint64(ContextLength), kv.ContextLength(), "llama.context_length")
	assert.Equal(t, uint64(HeadCount), kv.HeadCount(), "llama.attention.head_count")
	assert.Equal(t, uint64(HeadCount), kv.HeadCountKV(), "llama.attention.head_count_kv")
	assert.Equal(t, uint32(FeedForwardLength), kv.Uint("feed_forward_length"), "llama.feed_forward_length")
	assert.Equal(t, uint32(16), kv.Uint("rope.dimension_count"), "rope dimension = head dimension")
	assert.InDelta(t, 1e-5, kv.Float("attention.layer_norm_rms_epsilon"), 1e-9, "rms epsilon")
	assert.Equal(t, "llama", kv.String("tokenizer.ggml.model"), "SentencePiece tokenizer")
	assert.Equal(t, uint32(BOSID), kv.Uint("tokenizer.ggml.bos_token_id"), "bos id")
	assert.Equal(t, uint32(EOSID), kv.Uint("tokenizer.ggml.eos_token_id"), "eos id")
	assert.Equal(t, uint32(UnknownID), kv.Uint("tokenizer.ggml.unknown_token_id"), "unk id")

	tokens := kv.Strings("tokenizer.ggml.tokens")
	types := kv.Uints("tokenizer.ggml.token_type")
	scores := kv.Floats("tokenizer.ggml.scores")
	require.Len(t, tokens, len(v.Tokens), "token count")
	require.Len(t, types, len(tokens), "one token_type per token")
	require.Len(t, scores, len(tokens), "one score per token")
	assert.Equal(t, []string{"<unk>", "<s>", "</s>", "<0x00>", "<0x01>"}, tokens[:5], "special then byte tokens")
	assert.Equal(t, "<0xFF>", tokens[FirstByteID+255], "last byte token")
	assert.Equal(t, "▁the", tokens[FirstPieceID], "first word piece")
	assert.Equal(t, []uint32{2, 3, 3}, types[:3], "<unk> unknown, <s> and </s> control")
	for i := FirstByteID; i < FirstPieceID; i++ {
		assert.Equal(t, uint32(6), types[i], "byte token %q has type 6", tokens[i])
	}
	for i := FirstPieceID; i < len(tokens); i++ {
		assert.Equal(t, uint32(1), types[i], "word piece %q has type 1 (normal)", tokens[i])
	}
	assert.Greater(t, len(tokens)-FirstPieceID, 250, "a few hundred word pieces")

	seen := map[string]bool{}
	for _, tok := range tokens {
		assert.False(t, seen[tok], "token %q appears twice", tok)
		seen[tok] = true
	}

	// Tensors come back with GGUF ne order (innermost first).
	byName := map[string]*ggml.Tensor{}
	for _, tt := range g.Tensors().Items() {
		byName[tt.Name] = tt
	}
	assert.Len(t, byName, 3+9*BlockCount, "token_embd, output_norm, output and 9 per block")
	require.Contains(t, byName, "output.weight", "output.weight present")
	assert.Equal(t, []uint64{EmbeddingLength, uint64(len(tokens))}, byName["token_embd.weight"].Shape, "token_embd ne = [n_embd, n_vocab]")
	assert.Equal(t, []uint64{EmbeddingLength, FeedForwardLength}, byName["blk.1.ffn_gate.weight"].Shape, "ffn_gate ne = [n_embd, n_ff]")
	assert.Equal(t, []uint64{FeedForwardLength, EmbeddingLength}, byName["blk.0.ffn_down.weight"].Shape, "ffn_down ne = [n_ff, n_embd]")
	assert.Equal(t, []uint64{EmbeddingLength}, byName["output_norm.weight"].Shape, "output_norm is a vector")

	// The logits the model will produce are the row sums of output.weight.
	out := byName["output.weight"]
	_, err := f.Seek(int64(g.Tensors().Offset+out.Offset), io.SeekStart)
	require.NoError(t, err, "seek to output.weight")
	data := make([]float32, len(tokens)*EmbeddingLength)
	require.NoError(t, binary.Read(f, binary.LittleEndian, data), "read output.weight")
	row := func(i int) float32 {
		var s float32
		for _, x := range data[i*EmbeddingLength : (i+1)*EmbeddingLength] {
			s += x
		}
		return s
	}
	assert.InDelta(t, commonLogit, row(FirstPieceID), 1e-4, "first common piece logit")
	assert.InDelta(t, eosLogit, row(EOSID), 1e-4, "</s> logit")
	assert.InDelta(t, neverLogit, row(FirstByteID+'A'), 1e-3, "byte token logit")
	assert.InDelta(t, rareLogit, row(len(tokens)-1), 1e-4, "rare piece logit")

	st, err := f.Stat()
	require.NoError(t, err, "stat")
	assert.Less(t, st.Size(), int64(1<<20), "model stays under 1 MiB")
}

func TestVocabCannotSpellCapitalsOrDigits(t *testing.T) {
	v := NewVocab()
	for i := FirstPieceID; i < len(v.Tokens); i++ {
		text := strings.ReplaceAll(v.Tokens[i], "▁", " ")
		for _, r := range text {
			assert.False(t, unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("<>{}[]", r),
				"word piece %q must not contain capitals, digits or brackets (the workload forbids them)", v.Tokens[i])
		}
	}
	for i, l := range v.Logits {
		if v.Types[i] == tokenTypeByte || i == BOSID || i == UnknownID {
			assert.Less(t, l, float32(-10), "token %q must never be sampled", v.Tokens[i])
		}
	}
}

func TestEOSIsRareButPossible(t *testing.T) {
	p := eosProbability(NewVocab())
	// Between 1/300 and 1/60 per token: a 40-token answer sometimes stops
	// early, a 300-token answer usually does, and neither always.
	assert.Greater(t, p, 1.0/300, "</s> must be within top_k 40 and likely enough to stop sometimes")
	assert.Less(t, p, 1.0/60, "</s> must be rare enough that short answers often hit max_tokens")
}
