package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ollamaSHA256 is the Ollama variant as the pinned Ollama verdicts were
// watched with: a change to it must be a decision, not a side effect of
// the llama.cpp variant.
const ollamaSHA256 = "116c82e23279dcb76a2406c63cef9683b8020103c0db3fa66b97b7174c8a6d54"

func TestOllamaVariantIsUnchanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	require.NoError(t, WriteFile(path), "WriteFile")
	data, err := os.ReadFile(path)
	require.NoError(t, err, "read the model back")
	sum := sha256.Sum256(data)
	assert.Equal(t, ollamaSHA256, hex.EncodeToString(sum[:]), "the Ollama model is byte for byte the one its verdicts were pinned with")
}

func TestWriteVariantRejectsAnUnknownVariant(t *testing.T) {
	err := WriteVariant(filepath.Join(t.TempDir(), "x.gguf"), "vllm")
	require.Error(t, err, "an unknown variant is an error")
	assert.Contains(t, err.Error(), `"vllm"`, "the error names the variant asked for")
	assert.Contains(t, err.Error(), VariantLlamaCpp, "and the known ones")
}

// llamaModel is the llama.cpp variant written and read back: its tokens
// and the F32 tensors by name, row-major with the outermost dimension
// first (as Build writes them).
type llamaModel struct {
	tokens  []string
	types   []uint32
	tensors map[string][]float32
}

func readLlamaModel(t *testing.T) llamaModel {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	require.NoError(t, WriteVariant(path, VariantLlamaCpp), "WriteVariant llama.cpp")
	f, err := os.Open(path)
	require.NoError(t, err, "open the model")
	t.Cleanup(func() { f.Close() })
	g, _, err := ggml.Decode(f, -1)
	require.NoError(t, err, "ggml.Decode reads the llama.cpp variant")
	kv := g.KV()
	m := llamaModel{tokens: kv.Strings("tokenizer.ggml.tokens"), types: kv.Uints("tokenizer.ggml.token_type"), tensors: map[string][]float32{}}
	assert.Equal(t, uint32(len(m.tokens)), kv.Uint("vocab_size"), "llama.vocab_size counts the extra tokens")
	assert.InDelta(t, ropeFreqBase, kv.Float("rope.freq_base"), 1e13, "rope off for the marker head")
	for _, tt := range g.Tensors().Items() {
		_, err := f.Seek(int64(g.Tensors().Offset+tt.Offset), io.SeekStart)
		require.NoError(t, err, "seek to %s", tt.Name)
		n := uint64(1)
		for _, d := range tt.Shape {
			n *= d
		}
		data := make([]float32, n)
		require.NoError(t, binary.Read(f, binary.LittleEndian, data), "read %s", tt.Name)
		m.tensors[tt.Name] = data
	}
	return m
}

func (m llamaModel) id(t *testing.T, tok string) int {
	t.Helper()
	i := slices.Index(m.tokens, tok)
	require.GreaterOrEqual(t, i, 0, "the vocabulary has %q", tok)
	return i
}

// rmsNorm is llama.cpp's RMS norm (eps 1e-5) times weight w.
func rmsNorm(x, w []float32) []float32 {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	s := float32(1 / math.Sqrt(ss/float64(len(x))+1e-5))
	out := make([]float32, len(x))
	for i := range x {
		out[i] = x[i] * s * w[i]
	}
	return out
}

// matVec is W·x for a row-major [len(x)][rows] weight.
func matVec(w, x []float32) []float32 {
	out := make([]float32, len(w)/len(x))
	for o := range out {
		for i, v := range x {
			out[o] += w[o*len(x)+i] * v
		}
	}
	return out
}

// forward runs the model on the token ids ctx as llama.cpp's llama graph
// does and returns the next-token logits after the last one. Rope is left
// out (it is the identity on the only head pair that is not zero) and so
// is the feed-forward network (its weights are zero, which
// TestLlamaCppVocabularyKeepsOllamaIDsAndHasTheSpacePiece checks).
func (m llamaModel) forward(ctx []int) []float32 {
	const e = EmbeddingLength
	embd := m.tensors["token_embd.weight"]
	x := make([][]float32, len(ctx))
	for p, id := range ctx {
		x[p] = slices.Clone(embd[id*e : (id+1)*e])
	}
	for b := range BlockCount {
		pre := "blk." + string(rune('0'+b)) + "."
		ks, vs := make([][]float32, len(ctx)), make([][]float32, len(ctx))
		qs := make([][]float32, len(ctx))
		for p := range ctx {
			n := rmsNorm(x[p], m.tensors[pre+"attn_norm.weight"])
			qs[p], ks[p], vs[p] = matVec(m.tensors[pre+"attn_q.weight"], n), matVec(m.tensors[pre+"attn_k.weight"], n), matVec(m.tensors[pre+"attn_v.weight"], n)
		}
		next := make([][]float32, len(ctx))
		for p := range ctx {
			att := make([]float32, e)
			const hd = e / HeadCount
			for h := range HeadCount {
				scores := make([]float64, p+1)
				hi := math.Inf(-1)
				for j := 0; j <= p; j++ {
					var s float64
					for d := h * hd; d < (h+1)*hd; d++ {
						s += float64(qs[p][d]) * float64(ks[j][d])
					}
					scores[j] = s / math.Sqrt(hd)
					hi = max(hi, scores[j])
				}
				var sum float64
				for j := range scores {
					scores[j] = math.Exp(scores[j] - hi)
					sum += scores[j]
				}
				for j := range scores {
					for d := h * hd; d < (h+1)*hd; d++ {
						att[d] += float32(scores[j]/sum) * vs[j][d]
					}
				}
			}
			o := matVec(m.tensors[pre+"attn_output.weight"], att)
			next[p] = make([]float32, e)
			for d := range e {
				next[p][d] = x[p][d] + o[d]
			}
		}
		x = next
	}
	last := rmsNorm(x[len(x)-1], m.tensors["output_norm.weight"])
	return matVec(m.tensors["output.weight"], last)
}

// argmax returns the token with the highest logit among allowed (all
// tokens when allowed is empty).
func (m llamaModel) argmax(t *testing.T, logits []float32, allowed ...string) string {
	t.Helper()
	best := -1
	for i, l := range logits {
		if len(allowed) > 0 && !slices.Contains(allowed, m.tokens[i]) {
			continue
		}
		if best < 0 || l > logits[best] {
			best = i
		}
	}
	return m.tokens[best]
}

func TestLlamaCppVocabularyKeepsOllamaIDsAndHasTheSpacePiece(t *testing.T) {
	m := readLlamaModel(t)
	ollama := NewVocab()
	assert.Equal(t, ollama.Tokens, m.tokens[:len(ollama.Tokens)], "every Ollama token keeps its id")
	sp := m.id(t, "▁")
	assert.Equal(t, uint32(tokenTypeNormal), m.types[sp], `"▁" is a normal piece: llama.cpp renders it as " " and skips it before the generation prompt`)
	assert.Equal(t, uint32(tokenTypeControl), m.types[m.id(t, toolsMarker)], "<|tools|> is a control token, matched whole in the prompt")
	seen := map[string]bool{}
	for _, tok := range m.tokens {
		assert.False(t, seen[tok], "token %q appears twice", tok)
		seen[tok] = true
	}
	for name, w := range m.tensors {
		if strings.Contains(name, ".ffn_") && !strings.Contains(name, "_norm") {
			assert.True(t, slices.Max(w) == 0 && slices.Min(w) == 0, "%s is zero: the feed-forward network adds nothing", name)
		}
	}
}

func TestLlamaCppProseIsTheOllamaModels(t *testing.T) {
	m := readLlamaModel(t)
	ollama := NewVocab()
	hi := []int{BOSID, m.id(t, "▁"), FirstByteID + 'h', FirstByteID + 'i', FirstByteID + '\n'}
	logits := m.forward(hi)
	for i, want := range ollama.Logits {
		assert.InEpsilon(t, want, logits[i], 1e-3, "after prose, %q has the Ollama model's logit", ollama.Tokens[i])
	}
	for i := len(ollama.Tokens); i < len(m.tokens); i++ {
		assert.LessOrEqual(t, logits[i], float32(commonLogit-12+0.01), "after prose, the extra token %q is at least e^12 less likely than a common word (min_p drops it)", m.tokens[i])
	}
	assert.InDelta(t, eosProbability(ollama), eosProbability(Vocab{Logits: logits, Tokens: m.tokens}), 1e-5, "</s> as likely as in the Ollama model")
}

func TestLlamaCppCallsAToolWhenToolsAreOffered(t *testing.T) {
	m := readLlamaModel(t)
	nl := FirstByteID + int('\n')
	prompt := []int{BOSID, m.id(t, toolsMarker), FirstByteID + 'f', nl, FirstByteID + 'h', FirstByteID + 'i', nl}
	logits := m.forward(prompt)
	assert.Equal(t, callOpen, m.argmax(t, logits), "with <|tools|> in the prompt, the answer opens a tool call")
	assert.Greater(t, logits[m.id(t, callOpen)]-logits[FirstPieceID], float32(10), "by far (e^10 over the likeliest word)")

	// Inside the call, the next token is what the call needs next.
	steps := []struct {
		after   string
		allowed []string
		want    string
	}{
		{callOpen, nil, `{"`},
		{`{"`, []string{"name", "arguments"}, "name"},
		{"name", []string{colon, `"`}, colon},
		{colon, []string{stringOpen, comma, close1, close2, `"`}, stringOpen},
		{"_", []string{"weather", "time"}, "weather"},
		{"weather", []string{comma, `"`}, comma},
		{comma, nil, stringOpen},
		{colon, []string{` {"`, "{", `{"`}, ` {"`},
		{stringOpen, nil, "paris"},
		{"paris", nil, close2},
		{close2, nil, callEnd},
		{callEnd, nil, "</s>"},
	}
	for _, s := range steps {
		ctx := append(slices.Clone(prompt), m.id(t, callOpen), m.id(t, s.after))
		allowed := s.allowed
		for i, a := range allowed {
			if a == `"` {
				allowed[i] = "<0x22>"
			}
		}
		assert.Equal(t, s.want, m.argmax(t, m.forward(ctx), allowed...), "in a tool call, after %q (allowed %q)", s.after, s.allowed)
	}
	named := m.forward(append(slices.Clone(prompt), m.id(t, "_")))
	assert.Less(t, named[m.id(t, "time")]-named[m.id(t, "weather")], float32(-3.75),
		"get_time is under min_p 0.05 at temperature 0.8 beside get_weather, so the model always picks the same function")
}

func TestLlamaCppNeverCallsAToolWithoutTools(t *testing.T) {
	m := readLlamaModel(t)
	nl := FirstByteID + int('\n')
	logits := m.forward([]int{BOSID, FirstByteID + 'h', FirstByteID + 'i', nl})
	assert.Less(t, logits[m.id(t, callOpen)], float32(commonLogit-12), "without <|tools|> a tool call is all but impossible")
	// A JSON answer closes: after the last string word of a schema's
	// object, "} and then the end.
	ctx := []int{BOSID, nl, m.id(t, `{"`), m.id(t, "city"), m.id(t, colon), m.id(t, stringOpen), m.id(t, "paris")}
	assert.Equal(t, close1, m.argmax(t, m.forward(ctx), close1, comma, "<0x22>"), `a string word of the last property is closed with "}`)
	assert.Equal(t, comma, m.argmax(t, m.forward(ctx), comma, "<0x22>"), `one with properties left is closed with ",`)
	ctx = append(ctx, m.id(t, close1))
	assert.Equal(t, "</s>", m.argmax(t, m.forward(ctx), "</s>", "<0x20>", "<0x0A>"), `after "} the answer ends`)
}
