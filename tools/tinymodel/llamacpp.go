package main

import (
	"fmt"

	"github.com/ollama/ollama/fs/ggml"
)

// The llama.cpp variant of the tiny model: the same prose as the Ollama
// model, plus what llama.cpp's grammar-constrained sampling needs to end a
// tool call or a JSON answer within a few dozen tokens.
//
// Why the Ollama model cannot be constrained by llama.cpp: its vocabulary
// has no bare "▁" piece, so a space the word pieces do not cover is
// tokenized as the three byte tokens of U+2581 ("▁" itself, not a space).
// llama.cpp feeds the generation prompt ("<|assistant|>\n") to the grammar
// before sampling; its first token is then the byte 0xE2 where the grammar
// expects "<", the grammar sampler throws, and the server answers 400
// "Failed to initialize samplers: std::exception". Real SentencePiece
// vocabularies have "▁" (its piece is " ", which llama.cpp skips at the
// start of the prompt). And even with it, a unigram model whose byte tokens
// never occur spends one byte token per forced character and writes word
// salad inside every JSON string, so a constrained answer never closes.
//
// So this variant is a bigram model with one bit of context:
//   - every token has a class (prose, JSON piece, string opener, string
//     word, closers, tool-call tags) and its embedding is that class's basis
//     vector: with zero blocks the final hidden state is the embedding of
//     the last token, and output.weight is a table of next-token logits per
//     class. Prose follows prose exactly as in the Ollama model; JSON pieces
//     are all but impossible after prose (e^-12 or less against the common
//     words: min_p and top_k drop them) yet the likeliest of the tokens a
//     grammar allows, and after each piece the likeliest allowed one is the
//     piece that closes the answer soonest;
//   - block 0's first attention head finds the control token <|tools|>
//     anywhere in the context (its key is the only non-zero one, with a
//     score of ~41 against every query, and the rope of that head pair is
//     turned off by a huge freq_base) and sets a "tools offered" dimension;
//     that dimension makes "<tool_call>\n" the likeliest first token. The
//     llama.cpp template (scripts/llamaserver.sh) writes <|tools|> before
//     the tool list, so the model calls a tool whenever tools are offered
//     (as a tool-tuned model would) and never otherwise.

// Classes of the llama.cpp variant: the basis vector a token embeds to, and
// the row of next-token logits that follows it.
const (
	classProse    = iota // word pieces, bytes, specials: prose follows
	classJSON            // keys, names and '{"': more of the key or name, then its closing quote
	classColon           // `":`: a value follows
	classComma           // `",`: the next key follows
	classOpen            // ` "`: a string opens, a string word follows
	classWord            // string words: a closing quote follows
	classClose           // `"}`: the answer (or the arguments) ends
	classClose2          // `"}}`: the tool call's object ends
	classCallEnd         // </tool_call>: end of sequence follows
	classCallOpen        // <tool_call>\n: the call's object follows
	numClasses
)

// Residual-stream dimensions of the llama.cpp variant besides the class
// one-hots (0..numClasses-1).
const (
	dimNoTools = 60 // 1 unless <|tools|> is in the context
	dimTools   = 61 // 1 when <|tools|> is in the context (set by attention)
	dimMarker  = 62 // 1 in the embedding of <|tools|> only
	dimBias    = 63 // 1 in every embedding: the query of the marker head
)

// Logits of the llama.cpp variant's table, on top of the prose logits of
// the Ollama model (commonLogit, eosLogit, rareLogit, neverLogit).
const (
	// likely is a piece the class wants next; the grammar picks among the
	// allowed tokens by these.
	likely = 8.0
	// entryLogit is a JSON piece that starts an answer or a tool call
	// after prose ({", </tool_call>): far below prose, far above bytes.
	entryLogit = -8.0
	// offLogit is a piece that does not fit after the class.
	offLogit = -12.0
	// toolsBoost is added to <tool_call>\n when tools are offered: after
	// prose it then outweighs every word (-9+25 = 16 against 4).
	toolsBoost = 25.0
	// hiddenScale is what RMS norm makes of a one-hot class: the final
	// hidden state has three ones (class, tools-or-not, bias) in 64 dims.
	hiddenScale = 4.618802 // 8/sqrt(3)
	// markerQK is the query and key weight of the marker head: the score
	// of <|tools|> against any query is 0.25*(3*4.62)*(3*4) = 41.6, and
	// e^41.6 outweighs every other position of any context.
	markerQK = 3.0
	// ropeFreqBase turns rope off for the marker head's dims 14 and 15
	// (theta = pos * base^(-14/16)).
	ropeFreqBase = 1e20
)

// Extra tokens of the llama.cpp variant, appended after the Ollama
// vocabulary so every Ollama token keeps its id.
var (
	// jsonPieces are the BPE-like pieces a JSON answer or a tool call is
	// written with (classJSON).
	jsonPieces = []string{
		`{"`, ` {"`, "name", "arguments", "get", "_", "weather", "time",
		"city", "country", "unit", "celsius", "fahrenheit",
	}
	// stringWords are the words a JSON string holds (classWord), most
	// likely first.
	stringWords = []string{"paris", "tokyo", "london", "france", "japan", "rome"}
)

// Special tokens of the llama.cpp variant.
const (
	toolsMarker = "<|tools|>"     // control: written by the template before the tool list
	callOpen    = "<tool_call>\n" // the Hermes-style call opener, newline included
	callEnd     = "</tool_call>"
	colon       = `":`
	comma       = `",`
	stringOpen  = ` "`
	close1      = `"}`
	close2      = `"}}`
	spacePiece  = "▁"
)

// llamaVocab is the vocabulary of the llama.cpp variant and each token's
// class.
type llamaVocab struct {
	Vocab
	Classes []int
}

// newLlamaVocab is NewVocab plus "▁", <|tools|> and the JSON pieces.
func newLlamaVocab() llamaVocab {
	v := llamaVocab{Vocab: NewVocab()}
	v.Classes = make([]int, len(v.Tokens))
	add := func(tok string, typ int32, class int) {
		v.Tokens = append(v.Tokens, tok)
		v.Scores = append(v.Scores, -float32(len(v.Tokens)))
		v.Types = append(v.Types, typ)
		v.Logits = append(v.Logits, float32(neverLogit))
		v.Classes = append(v.Classes, class)
	}
	add(spacePiece, tokenTypeNormal, classProse)
	add(toolsMarker, tokenTypeControl, classProse)
	for _, p := range jsonPieces {
		add(p, tokenTypeNormal, classJSON)
	}
	add(colon, tokenTypeNormal, classColon)
	add(comma, tokenTypeNormal, classComma)
	add(stringOpen, tokenTypeNormal, classOpen)
	for _, w := range stringWords {
		add(w, tokenTypeNormal, classWord)
	}
	add(close1, tokenTypeNormal, classClose)
	add(close2, tokenTypeNormal, classClose2)
	add(callEnd, tokenTypeNormal, classCallEnd)
	add(callOpen, tokenTypeNormal, classCallOpen)
	return v
}

// id returns the id of token tok, panicking for a token not in v (a
// programming error in this file).
func (v llamaVocab) id(tok string) int {
	for i, t := range v.Tokens {
		if t == tok {
			return i
		}
	}
	panic("tinymodel: no token " + tok)
}

// logitTable returns the next-token logits after a token of each class
// ([class][token]) and the boost each token gets when tools are offered.
func (v llamaVocab) logitTable() ([numClasses][]float32, []float32) {
	n := len(v.Tokens)
	var t [numClasses][]float32
	for c := range t {
		t[c] = make([]float32, n)
		for i := range t[c] {
			t[c][i] = neverLogit
		}
	}
	set := func(c int, tok string, l float32) { t[c][v.id(tok)] = l }
	byClass := func(c, of int, l float32) {
		for i, k := range v.Classes {
			if k == of && v.Types[i] == tokenTypeNormal && v.Tokens[i] != spacePiece {
				t[c][i] = l
			}
		}
	}
	byte1 := func(b byte) string { return fmt.Sprintf("<0x%02X>", b) }

	// Prose: the Ollama model's distribution; JSON can start, barely.
	copy(t[classProse], v.Logits)
	set(classProse, spacePiece, neverLogit)
	for c := classJSON; c < numClasses; c++ {
		byClass(classProse, c, offLogit)
	}
	set(classProse, `{"`, entryLogit)
	set(classProse, callEnd, entryLogit)
	set(classProse, callOpen, entryLogit-1)

	// A key or name: more of it, then its closing quote with what follows
	// (": after a key, ", after a name, "} or "}} after an enum value).
	byClass(classJSON, classJSON, likely)
	set(classJSON, colon, likely)
	set(classJSON, comma, likely-1)
	set(classJSON, close2, likely-2)
	set(classJSON, close1, likely-3)
	set(classJSON, stringOpen, -2)
	byClass(classJSON, classWord, -2)
	// llama.cpp treats a named tool_choice as "auto" (it reads
	// tool_choice as a string only), so the model picks the function: make
	// it always the same one (get_weather over get_time; min_p drops
	// "time") rather than a coin toss.
	set(classJSON, "time", 0)
	// After ": a value opens (a string or an object); after ", a key.
	set(classColon, stringOpen, likely)
	set(classColon, ` {"`, likely)
	set(classColon, `{"`, likely-1)
	set(classComma, stringOpen, likely)

	// An open string: a word, then (classWord) a closer, the one that
	// closes most first.
	for i, w := range stringWords {
		set(classOpen, w, likely-0.5*float32(i))
	}
	byClass(classOpen, classJSON, 0)
	set(classOpen, close1, -5)
	set(classOpen, close2, -5)
	set(classOpen, comma, -5)
	set(classWord, close2, likely)
	set(classWord, close1, likely-2)
	set(classWord, comma, likely-5)
	byClass(classWord, classWord, -5)

	// After `"}`: the answer ends, or the tool call's object closes with
	// "}"; after `"}}` and "}": </tool_call>; after it, the end.
	set(classClose, "</s>", 10)
	set(classClose, byte1('}'), likely)
	set(classClose, callEnd, likely-2)
	set(classClose2, callEnd, likely)
	set(classClose2, "</s>", -5)
	set(classCallEnd, "</s>", 10)
	set(classCallOpen, `{"`, likely)

	// The tool-call opener is unreachable except after prose when tools
	// are offered.
	for c := classJSON; c < numClasses; c++ {
		set(c, callOpen, -40)
	}
	boost := make([]float32, n)
	boost[v.id(callOpen)] = toolsBoost
	return t, boost
}

// BuildLlamaCpp returns the metadata and tensors of the llama.cpp variant:
// the Ollama model's shape and prose, a vocabulary with "▁", <|tools|> and
// JSON pieces, and the weights of the bigram-with-tools-bit model above.
func BuildLlamaCpp() (ggml.KV, []ggml.Tensor) {
	v := newLlamaVocab()
	kv := metadata(v.Vocab)
	n := uint64(len(v.Tokens))
	const e, ff = uint64(EmbeddingLength), uint64(FeedForwardLength)
	kv["general.name"] = "benchserve-tiny-llama.cpp"
	kv["llama.rope.freq_base"] = float32(ropeFreqBase)

	// Embeddings: the class one-hot, "no tools", the bias, and the marker
	// bit for <|tools|>.
	embd := make(floats, n*e)
	for i, c := range v.Classes {
		row := embd[uint64(i)*e : uint64(i+1)*e]
		row[c], row[dimNoTools], row[dimBias] = 1, 1, 1
		if v.Tokens[i] == toolsMarker {
			row[dimMarker] = 1
		}
	}

	// output.weight: logit(tok) = hiddenScale * (W[tok][class] + W[tok][dimTools]*tools).
	table, boost := v.logitTable()
	out := make(floats, n*e)
	for tok := range n {
		row := out[tok*e : (tok+1)*e]
		for c := range numClasses {
			row[c] = table[c][tok] / hiddenScale
		}
		row[dimTools] = boost[tok] / hiddenScale
	}

	// Block 0, head 0: query from the bias, key and value from the marker
	// bit (dims 14 of q and k: the head's slowest rope pair), out to the
	// tools dims. attn_norm passes only those two dims.
	const qk = 14
	attnNorm := make(floats, e)
	attnNorm[dimMarker], attnNorm[dimBias] = 1, 1
	q, k, val, o := make(floats, e*e), make(floats, e*e), make(floats, e*e), make(floats, e*e)
	q[qk*e+dimBias] = markerQK
	k[qk*e+dimMarker] = markerQK
	val[0*e+dimMarker] = 1
	// The marker's normed value is 4 (four ones in 64 dims): scale to 1.
	o[dimTools*e+0] = 0.25
	o[dimNoTools*e+0] = -0.25

	ts := []ggml.Tensor{
		{Name: "token_embd.weight", Kind: 0, Shape: []uint64{n, e}, WriterTo: embd},
		f32("output_norm.weight", 1, e),
		{Name: "output.weight", Kind: 0, Shape: []uint64{n, e}, WriterTo: out},
	}
	for b := range BlockCount {
		p := fmt.Sprintf("blk.%d.", b)
		if b == 0 {
			ts = append(ts,
				ggml.Tensor{Name: p + "attn_norm.weight", Kind: 0, Shape: []uint64{e}, WriterTo: attnNorm},
				ggml.Tensor{Name: p + "attn_q.weight", Kind: 0, Shape: []uint64{e, e}, WriterTo: q},
				ggml.Tensor{Name: p + "attn_k.weight", Kind: 0, Shape: []uint64{e, e}, WriterTo: k},
				ggml.Tensor{Name: p + "attn_v.weight", Kind: 0, Shape: []uint64{e, e}, WriterTo: val},
				ggml.Tensor{Name: p + "attn_output.weight", Kind: 0, Shape: []uint64{e, e}, WriterTo: o},
			)
		} else {
			ts = append(ts,
				f32(p+"attn_norm.weight", 0, e),
				f32(p+"attn_q.weight", 0, e, e),
				f32(p+"attn_k.weight", 0, e, e),
				f32(p+"attn_v.weight", 0, e, e),
				f32(p+"attn_output.weight", 0, e, e),
			)
		}
		ts = append(ts,
			f32(p+"ffn_norm.weight", 0, e),
			f32(p+"ffn_gate.weight", 0, ff, e),
			f32(p+"ffn_up.weight", 0, ff, e),
			f32(p+"ffn_down.weight", 0, e, ff),
		)
	}
	return kv, ts
}
