package datasets

import (
	"github.com/benchserve/benchserve/internal/tokens"
	"math/rand/v2"
	"strings"
	"sync"
)

// blockStream is the PCG stream constant of Block's generator, distinct
// from the seed stream of loadgen.NewRand, so a block id never replays a
// run's draws.
const blockStream = 0x6a09e667f3bcc909

// Prompter builds prompt texts of an exact number of tokens from
// single-token words: each of its 2048 words is one token with or without
// a leading space in o200k_base and cl100k_base (tools/genwords checks
// both) and one word for the fixture, so a text of n words joined by
// single spaces is n tokens under those tokenizers, and texts joined by a
// space add up (a shared prefix stays token-aligned). Other tokenizers
// (sentencepiece models on Ollama) count common words close to one token
// each; calibration (package tokens) measures the difference. A Prompter
// is immutable and safe for concurrent use.
type Prompter struct {
	words []string
}

// NewPrompter returns the Prompter over the builtin single-token words.
func NewPrompter() *Prompter { return &Prompter{words: builtinWords()} }

// builtinWords splits wordList once.
var builtinWords = sync.OnceValue(func() []string { return strings.Fields(wordList) })

// Words returns how many distinct words texts are drawn from.
func (p *Prompter) Words() int { return len(p.words) }

// Text returns n words drawn uniformly with r, joined by single spaces
// ("" for n <= 0). The same r state gives the same text.
func (p *Prompter) Text(r *rand.Rand, n int) string {
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(n * 8)
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.words[r.IntN(len(p.words))])
	}
	return b.String()
}

// Block returns the text of n tokens that id stands for: equal ids give
// byte-identical texts, whatever else was drawn before, so a trace's
// hash_ids (blocks of a fixed token count) reproduce its prefix reuse.
// Join blocks with a single space to keep the counts adding up.
func (p *Prompter) Block(id uint64, n int) string {
	return p.Text(rand.New(rand.NewPCG(id, blockStream)), n)
}

// Join joins texts of counted tokens with single spaces, skipping empty
// ones, so the result has the sum of their counts.
func Join(texts ...string) string {
	var nonEmpty []string
	for _, t := range texts {
		if t != "" {
			nonEmpty = append(nonEmpty, t)
		}
	}
	return strings.Join(nonEmpty, " ")
}

// Method says how the Prompter's texts are counted: a text of n words is
// n tokens (tokens.MethodWords).
func (p *Prompter) Method() tokens.Method { return tokens.MethodWords }
