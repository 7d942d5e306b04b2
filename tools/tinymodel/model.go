package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/fs/ggml"
)

// Shape of the tiny model. The numbers are what llama.cpp needs to build a
// llama graph: EmbeddingLength must be HeadCount * head dimension, and the
// rope dimension is the head dimension.
const (
	// EmbeddingLength is the hidden size (llama.embedding_length).
	EmbeddingLength = 64
	// BlockCount is the number of transformer blocks (llama.block_count).
	BlockCount = 2
	// FeedForwardLength is the FFN inner size (llama.feed_forward_length).
	FeedForwardLength = 128
	// HeadCount is the number of attention heads (and KV heads).
	HeadCount = 4
	// ContextLength is the trained context length advertised
	// (llama.context_length); the Modelfile's num_ctx may be smaller.
	ContextLength = 16384
)

// Token ids of the special tokens, in the SentencePiece "llama" layout.
const (
	UnknownID = 0 // <unk>
	BOSID     = 1 // <s>
	EOSID     = 2 // </s>
	// FirstByteID is the id of <0x00>; <0xFF> is FirstByteID+255.
	FirstByteID = 3
	// FirstPieceID is the id of the first word piece (after the bytes).
	FirstPieceID = FirstByteID + 256
)

// SentencePiece token types (llama.cpp llama_token_type).
const (
	tokenTypeNormal  int32 = 1
	tokenTypeUnknown int32 = 2
	tokenTypeControl int32 = 3
	tokenTypeByte    int32 = 6
)

// Logits of the fixed next-token distribution. Every forward pass ends with
// the same hidden state (all ones), so logit(v) = sum(output.weight[v]) and
// we store Logit/EmbeddingLength in each of the row's entries.
//
// Ollama's OpenAI endpoint samples with temperature 1, top_p 1, and the
// Modelfile defaults top_k 40 and repeat_penalty 1.1 over the last 64
// tokens. The top 40 candidates are then the common pieces, </s> and 15 rare
// pieces; </s> gets about 1/150 of the mass, so a 40-token answer stops
// early about a quarter of the time and a 300-token answer runs to the
// limit about a tenth of the time: both finish reasons occur. With
// temperature 0 (greedy) </s> never wins and every answer runs to
// max_tokens.
const (
	commonLogit  = 4.0
	eosLogit     = 1.7
	rareLogit    = 1.0
	neverLogit   = -20.0 // <unk>, <s> and the byte tokens
	commonSpread = 0.5   // common logits go from commonLogit down by this
)

// commonPieces are the likely word pieces, most likely first. All are
// lowercase ASCII words or punctuation, so the model can never produce an
// uppercase letter, a digit or markup.
var commonPieces = []string{
	"▁the", "▁model", "▁a", "▁of", "▁and", "▁to", "▁is", "▁in", "▁that",
	"▁it", "▁for", "▁on", "▁with", "▁as", "▁this", "▁token", "▁stream",
	"▁server", "▁test", "▁bench", "▁small", "▁fast", ",", ".",
}

// rarePieces are the unlikely word pieces.
var rarePieces = []string{
	"▁about", "▁above", "▁across", "▁after", "▁again", "▁against", "▁all",
	"▁almost", "▁along", "▁also", "▁always", "▁among", "▁an", "▁another",
	"▁answer", "▁any", "▁are", "▁around", "▁ask", "▁at", "▁away", "▁back",
	"▁be", "▁because", "▁been", "▁before", "▁began", "▁begin", "▁being",
	"▁below", "▁best", "▁better", "▁between", "▁big", "▁both", "▁bring",
	"▁build", "▁but", "▁by", "▁cache", "▁call", "▁came", "▁can", "▁case",
	"▁change", "▁check", "▁chunk", "▁city", "▁close", "▁code", "▁come",
	"▁could", "▁count", "▁country", "▁cut", "▁data", "▁day", "▁did",
	"▁different", "▁do", "▁does", "▁done", "▁down", "▁each", "▁early",
	"▁earth", "▁end", "▁enough", "▁even", "▁event", "▁every", "▁example",
	"▁eye", "▁face", "▁fact", "▁far", "▁feel", "▁few", "▁file", "▁find",
	"▁first", "▁follow", "▁food", "▁form", "▁found", "▁from", "▁full",
	"▁get", "▁give", "▁go", "▁good", "▁got", "▁great", "▁group", "▁grow",
	"▁had", "▁hand", "▁hard", "▁has", "▁have", "▁he", "▁head", "▁hear",
	"▁help", "▁her", "▁here", "▁high", "▁him", "▁his", "▁home", "▁house",
	"▁how", "▁idea", "▁if", "▁important", "▁into", "▁its", "▁just",
	"▁keep", "▁kind", "▁know", "▁land", "▁large", "▁last", "▁late",
	"▁later", "▁learn", "▁leave", "▁left", "▁less", "▁let", "▁life",
	"▁light", "▁like", "▁line", "▁list", "▁little", "▁live", "▁long",
	"▁look", "▁made", "▁make", "▁man", "▁many", "▁may", "▁me", "▁mean",
	"▁might", "▁more", "▁most", "▁move", "▁much", "▁must", "▁my", "▁name",
	"▁near", "▁need", "▁never", "▁new", "▁next", "▁night", "▁no", "▁not",
	"▁now", "▁number", "▁off", "▁often", "▁old", "▁once", "▁one", "▁only",
	"▁open", "▁or", "▁other", "▁our", "▁out", "▁over", "▁own", "▁page",
	"▁paper", "▁part", "▁people", "▁place", "▁plant", "▁play", "▁point",
	"▁prompt", "▁put", "▁question", "▁quick", "▁read", "▁real", "▁reply",
	"▁request", "▁right", "▁river", "▁run", "▁said", "▁same", "▁saw",
	"▁say", "▁school", "▁second", "▁see", "▁seem", "▁sentence", "▁set",
	"▁she", "▁should", "▁show", "▁side", "▁since", "▁slow", "▁so", "▁some",
	"▁something", "▁sound", "▁spell", "▁start", "▁state", "▁still",
	"▁stop", "▁story", "▁study", "▁such", "▁take", "▁talk", "▁tell",
	"▁text", "▁than", "▁their", "▁them", "▁then", "▁there", "▁these",
	"▁they", "▁thing", "▁think", "▁those", "▁thought", "▁three", "▁through",
	"▁time", "▁together", "▁too", "▁took", "▁tree", "▁try", "▁turn",
	"▁two", "▁under", "▁until", "▁up", "▁us", "▁use", "▁very", "▁walk",
	"▁want", "▁was", "▁watch", "▁water", "▁way", "▁we", "▁well", "▁went",
	"▁were", "▁what", "▁when", "▁where", "▁which", "▁while", "▁white",
	"▁who", "▁why", "▁will", "▁without", "▁word", "▁work", "▁world",
	"▁would", "▁write", "▁year", "▁you", "▁young", "▁your", "!", "?", ";",
	":", "s", "ed", "ing", "ly", "er",
}

// Vocab is the tokenizer of the tiny model: parallel slices indexed by
// token id.
type Vocab struct {
	Tokens []string
	Scores []float32
	Types  []int32
	// Logits is the fixed next-token logit of each token.
	Logits []float32
}

// NewVocab builds the tiny model's vocabulary: <unk>, <s>, </s>, the 256
// byte tokens <0x00>…<0xFF> (type 6), then the common and rare word pieces
// (type 1) with SentencePiece scores that favour the common pieces.
func NewVocab() Vocab {
	var v Vocab
	add := func(tok string, score float32, typ int32, logit float32) {
		v.Tokens = append(v.Tokens, tok)
		v.Scores = append(v.Scores, score)
		v.Types = append(v.Types, typ)
		v.Logits = append(v.Logits, logit)
	}
	add("<unk>", 0, tokenTypeUnknown, neverLogit)
	add("<s>", 0, tokenTypeControl, neverLogit)
	add("</s>", 0, tokenTypeControl, eosLogit)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), 0, tokenTypeByte, neverLogit)
	}
	for i, p := range commonPieces {
		logit := commonLogit - commonSpread*float32(i)/float32(len(commonPieces))
		add(p, -float32(i), tokenTypeNormal, logit)
	}
	for i, p := range rarePieces {
		add(p, -float32(len(commonPieces)+i), tokenTypeNormal, rareLogit)
	}
	return v
}

// floats is an io.WriterTo writing float32 values little-endian, the body
// of an F32 tensor.
type floats []float32

func (f floats) WriteTo(w io.Writer) (int64, error) {
	if err := binary.Write(w, binary.LittleEndian, []float32(f)); err != nil {
		return 0, err
	}
	return int64(4 * len(f)), nil
}

// f32 returns an F32 tensor with the given outermost-first shape, every
// element set to value.
func f32(name string, value float32, shape ...uint64) ggml.Tensor {
	n := uint64(1)
	for _, d := range shape {
		n *= d
	}
	data := make(floats, n)
	for i := range data {
		data[i] = value
	}
	return ggml.Tensor{Name: name, Kind: 0, Shape: shape, WriterTo: data}
}

// Build returns the metadata and tensors of the tiny llama model. Shapes
// are outermost first (WriteGGUF reverses them into GGUF's ne order), so a
// weight that maps n_embd inputs to n_out outputs is [n_out, n_embd].
func Build() (ggml.KV, []ggml.Tensor) {
	v := NewVocab()
	n := uint64(len(v.Tokens))
	const e, ff = uint64(EmbeddingLength), uint64(FeedForwardLength)
	kv := metadata(v)

	// output.weight row v holds logit(v)/e in every column: the final
	// hidden state is all ones, so the row sums to logit(v).
	out := make(floats, 0, n*e)
	for _, l := range v.Logits {
		for range e {
			out = append(out, l/float32(e))
		}
	}
	ts := []ggml.Tensor{
		f32("token_embd.weight", 1, n, e),
		f32("output_norm.weight", 1, e),
		{Name: "output.weight", Kind: 0, Shape: []uint64{n, e}, WriterTo: out},
	}
	for b := range BlockCount {
		p := fmt.Sprintf("blk.%d.", b)
		ts = append(ts,
			f32(p+"attn_norm.weight", 0, e),
			f32(p+"attn_q.weight", 0, e, e),
			f32(p+"attn_k.weight", 0, e, e),
			f32(p+"attn_v.weight", 0, e, e),
			f32(p+"attn_output.weight", 0, e, e),
			f32(p+"ffn_norm.weight", 0, e),
			f32(p+"ffn_gate.weight", 0, ff, e),
			f32(p+"ffn_up.weight", 0, ff, e),
			f32(p+"ffn_down.weight", 0, e, ff),
		)
	}
	return kv, ts
}

// metadata returns the GGUF metadata of a tiny llama model with
// vocabulary v.
func metadata(v Vocab) ggml.KV {
	n := uint64(len(v.Tokens))
	kv := ggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           "benchserve-tiny",
		"general.file_type":                      uint32(0), // all F32
		"llama.context_length":                   uint32(ContextLength),
		"llama.embedding_length":                 uint32(EmbeddingLength),
		"llama.block_count":                      uint32(BlockCount),
		"llama.feed_forward_length":              uint32(FeedForwardLength),
		"llama.attention.head_count":             uint32(HeadCount),
		"llama.attention.head_count_kv":          uint32(HeadCount),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.rope.dimension_count":             uint32(EmbeddingLength / HeadCount),
		"llama.rope.freq_base":                   float32(10000),
		"llama.vocab_size":                       uint32(n),
		"tokenizer.ggml.model":                   "llama",
		"tokenizer.ggml.tokens":                  v.Tokens,
		"tokenizer.ggml.scores":                  v.Scores,
		"tokenizer.ggml.token_type":              v.Types,
		"tokenizer.ggml.bos_token_id":            uint32(BOSID),
		"tokenizer.ggml.eos_token_id":            uint32(EOSID),
		"tokenizer.ggml.unknown_token_id":        uint32(UnknownID),
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.add_eos_token":           false,
	}
	return kv
}

// Variants of the tiny model: the one Ollama serves (Build) and the one
// llama.cpp serves (BuildLlamaCpp).
const (
	VariantOllama   = "ollama"
	VariantLlamaCpp = "llama.cpp"
)

// builders maps a variant to the function that builds it.
var builders = map[string]func() (ggml.KV, []ggml.Tensor){
	VariantOllama:   Build,
	VariantLlamaCpp: BuildLlamaCpp,
}

// WriteFile writes the Ollama variant of the tiny model as GGUF to path
// (WriteVariant with VariantOllama).
func WriteFile(path string) error {
	return WriteVariant(path, VariantOllama)
}

// WriteVariant writes the tiny model's variant (VariantOllama or
// VariantLlamaCpp) as GGUF to path, creating its directory. The file is
// written to a temporary name and renamed, so a reader never sees a
// partial model. An unknown variant is an error naming the known ones.
func WriteVariant(path, variant string) error {
	build, ok := builders[variant]
	if !ok {
		return fmt.Errorf("tinymodel: write: unknown variant %q (want %q or %q)", variant, VariantOllama, VariantLlamaCpp)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("tinymodel: write: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tiny-*.gguf")
	if err != nil {
		return fmt.Errorf("tinymodel: write: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	kv, ts := build()
	if err := ggml.WriteGGUF(tmp, kv, ts); err != nil {
		tmp.Close()
		return fmt.Errorf("tinymodel: write gguf: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("tinymodel: write: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("tinymodel: write: %w", err)
	}
	return nil
}

// eosProbability is the chance that </s> is sampled at one step under
// top_k 40 and temperature 1, ignoring the repeat penalty. Used by the
// tests to keep the logits honest.
func eosProbability(v Vocab) float64 {
	ls := make([]float64, len(v.Logits))
	for i, l := range v.Logits {
		ls[i] = float64(l)
	}
	// top 40 by logit
	top := make([]float64, 0, 40)
	used := make([]bool, len(ls))
	for range 40 {
		best := -1
		for i, l := range ls {
			if !used[i] && (best < 0 || l > ls[best]) {
				best = i
			}
		}
		used[best] = true
		top = append(top, ls[best])
	}
	var sum float64
	for _, l := range top {
		sum += math.Exp(l)
	}
	if !used[EOSID] {
		return 0
	}
	return math.Exp(ls[EOSID]) / sum
}
