package datasets

import (
	"github.com/benchserve/benchserve/internal/tokens"
	"math/rand/v2"
	"slices"
	"sort"
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
// each; calibration (package tokens) measures the difference, and
// CalibratedPrompter builds texts the server counts exactly. A Prompter
// is immutable and safe for concurrent use.
type Prompter struct {
	// words are sorted by their token counts, fewest first.
	words []string
	// tokens[i] is words[i]'s count (nil: every word is one token);
	// upTo[c] is how many words count at most c tokens, c < maxTokens.
	tokens    []int
	upTo      []int
	maxTokens int
	// anchor, when set, is the first word of every text (a calibrated
	// Prompter's: the first word of a message counts differently).
	anchor string
	// overhead is the chat template's tokens a prompt adds to its text.
	overhead int
	method   tokens.Method
}

// NewPrompter returns the Prompter over the builtin single-token words.
func NewPrompter() *Prompter {
	return &Prompter{words: builtinWords(), maxTokens: 1, method: tokens.MethodWords}
}

// CalibratedPrompter returns the Prompter of a server's calibration
// (tokens.Calibrator over CandidateWords): its texts are cal.Anchor
// followed by cal.Words whose counts add up to the rest, so a text of n
// tokens (Text) is a chat prompt of n + Overhead() tokens as that server
// counts them, and its Method is the calibration's. cal must hold a
// one-token word (Calibrate ensures it).
func CalibratedPrompter(cal *tokens.Calibration) *Prompter {
	ws := slices.Clone(cal.Words)
	slices.SortStableFunc(ws, func(a, b tokens.Word) int { return a.Tokens - b.Tokens })
	p := &Prompter{anchor: cal.Anchor, overhead: cal.Overhead, method: cal.Method}
	for _, w := range ws {
		p.words, p.tokens = append(p.words, w.Text), append(p.tokens, w.Tokens)
	}
	p.maxTokens = ws[len(ws)-1].Tokens
	p.upTo = make([]int, p.maxTokens)
	for c := range p.upTo {
		p.upTo[c] = sort.Search(len(ws), func(i int) bool { return ws[i].Tokens > c })
	}
	return p
}

// CandidateWords returns the builtin single-token words, most common
// first: the candidates a calibration counts on a server.
func CandidateWords() []string { return builtinWords() }

// builtinWords splits wordList once.
var builtinWords = sync.OnceValue(func() []string { return strings.Fields(wordList) })

// Words returns how many distinct words texts are drawn from.
func (p *Prompter) Words() int { return len(p.words) }

// Text returns a text of n tokens: words drawn uniformly with r (a
// calibrated Prompter's anchor first) among those that fit in the tokens
// left, joined by single spaces ("" for n <= 0). The same r state gives
// the same text.
func (p *Prompter) Text(r *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n * 8)
	for left := n; left > 0; {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if b.Len() == 0 && p.anchor != "" {
			b.WriteString(p.anchor)
			left--
			continue
		}
		k := len(p.words)
		if left < p.maxTokens {
			k = p.upTo[left]
		}
		i := r.IntN(k)
		b.WriteString(p.words[i])
		if p.tokens == nil {
			left--
		} else {
			left -= p.tokens[i]
		}
	}
	return b.String()
}

// Overhead is the tokens a chat prompt adds to its text's (the template's):
// 0 for NewPrompter, which counts texts alone; a calibration's otherwise.
// A generator asked for a prompt of N tokens writes a text of N-Overhead.
func (p *Prompter) Overhead() int { return p.overhead }

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

// Method says how the Prompter's texts are counted: tokens.MethodWords for
// NewPrompter (a text of n words is n tokens), the calibration's method
// (tokens.MethodServer, tokens.MethodUsage) for CalibratedPrompter.
func (p *Prompter) Method() tokens.Method { return p.method }
