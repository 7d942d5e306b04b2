// Command tinymodel writes a tiny llama-architecture GGUF model that Ollama
// (pinned at v0.6.5) can serve on a CPU in a fraction of a second per
// answer, so benchserve can be tried and tested against a real inference
// server without a GPU or a model download.
//
// It is its own Go module so that the heavy github.com/ollama/ollama
// dependency never enters the main benchserve module. Run it from this
// directory:
//
//	cd tools/tinymodel && go run . -o /tmp/tiny/tiny.gguf
//
// The model: a SentencePiece ("llama") vocabulary of <unk>, <s>, </s>, the
// 256 byte tokens <0x00>…<0xFF> and a few hundred lowercase word pieces;
// 64 wide, 2 blocks, all F32 (~0.6 MB). Every transformer weight is zero and
// every token embedding is the all-ones vector, so after RMS norm the hidden
// state is constant and the next-token distribution is fixed by
// output.weight: common word pieces are likely, </s> is rare but possible
// (about 1 in 150 per token at temperature 1), the byte tokens never occur.
// Its answers are therefore lowercase English-word salad with no digits,
// capitals or markup, and both finish_reason "stop" and "length" occur.
//
// -variant llama.cpp writes the model scripts/llamaserver.sh serves with
// llama.cpp's llama-server: the same prose, a vocabulary llama.cpp's
// grammar sampler accepts, JSON pieces that let a grammar-constrained
// answer close in a dozen tokens, and a tool call whenever the prompt
// offers tools (see llamacpp.go for why and how).
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", "tiny.gguf", "output GGUF path")
	variant := flag.String("variant", VariantOllama, "the model to write: "+VariantOllama+" (served by Ollama) or "+VariantLlamaCpp+" (served by llama-server: grammar-friendly vocabulary, calls a tool when tools are offered)")
	flag.Parse()
	if err := WriteVariant(*out, *variant); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	st, err := os.Stat(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s (%d bytes)\n", *out, st.Size())
}
