package tokens

import (
	"context"
	"strings"
)

// Method names the way a Counter counts, recorded in the payload so a
// reader knows what "input tokens" means for a run.
type Method string

// The counting methods.
const (
	// MethodServer is the server's POST /tokenize endpoint.
	MethodServer Method = "server_tokenize"
	// MethodBuiltinO200k is the builtin BPE tokenizer with the o200k_base
	// vocabulary (GPT-4o's).
	MethodBuiltinO200k Method = "builtin_o200k_base"
	// MethodBuiltinCl100k is the builtin BPE tokenizer with the cl100k_base
	// vocabulary (GPT-4's).
	MethodBuiltinCl100k Method = "builtin_cl100k_base"
	// MethodWords counts whitespace-separated words: exact for the
	// fixture and for prompts built from datasets' single-token words.
	MethodWords Method = "words"
	// MethodUsage is calibration from usage.prompt_tokens alone (a
	// server with no tokenizer endpoint, such as Ollama): a text's count
	// is its word count, the chat template's overhead measured.
	MethodUsage Method = "usage_calibration"
)

// Counter counts the tokens of a text. Implementations are safe for
// concurrent use.
type Counter interface {
	// Count returns the number of tokens of text, without any chat
	// template (no special tokens). A server counter's error names the
	// endpoint and the HTTP status.
	Count(ctx context.Context, text string) (int, error)
	// Method says which way Count counts.
	Method() Method
}

// Words is the Counter that counts whitespace-separated words
// (MethodWords). Its zero value is ready.
type Words struct{}

// Count returns len(strings.Fields(text)); it never fails.
func (Words) Count(_ context.Context, text string) (int, error) {
	return len(strings.Fields(text)), nil
}

// Method returns MethodWords.
func (Words) Method() Method { return MethodWords }
