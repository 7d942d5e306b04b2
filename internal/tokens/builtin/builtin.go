// Package builtin is the builtin BPE token counter: OpenAI's o200k_base
// and cl100k_base vocabularies in pure Go (github.com/tiktoken-go/tokenizer),
// embedded, nothing downloaded. The vocabularies make a binary about
// 12 MB larger, so only the CLI (and a caller that opts in by importing
// this package) links them; package tokens and the test plugin do not.
package builtin

import (
	"context"
	"fmt"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/benchserve/benchserve/internal/tokens"
)

// Counter counts tokens with one builtin vocabulary. It is safe for
// concurrent use.
type Counter struct {
	c      *codec.Codec
	method tokens.Method
}

// Encodings are the vocabulary names New accepts.
var Encodings = []string{"o200k_base", "cl100k_base"}

// New returns the counter for encoding "o200k_base" or "cl100k_base"
// (building its tables the first time, about 0.1-0.3 s).
func New(encoding string) (*Counter, error) {
	switch encoding {
	case "o200k_base":
		return &Counter{c: codec.NewO200kBase(), method: tokens.MethodBuiltinO200k}, nil
	case "cl100k_base":
		return &Counter{c: codec.NewCl100kBase(), method: tokens.MethodBuiltinCl100k}, nil
	}
	return nil, fmt.Errorf("tokens: builtin encoding %q: want one of %v", encoding, Encodings)
}

// Count returns the number of tokens of text (no special tokens: text
// such as "<|endoftext|>" counts as ordinary text). Invalid UTF-8 counts
// as its bytes; it never fails.
func (c *Counter) Count(_ context.Context, text string) (int, error) {
	return c.c.Count(text)
}

// Method returns the counter's method (tokens.MethodBuiltinO200k or
// tokens.MethodBuiltinCl100k).
func (c *Counter) Method() tokens.Method { return c.method }
