package tokens

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Calibrator measures how a server counts a list of candidate words, so
// that prompts of an exact number of tokens can be built for it (issue 27
// item 1): how many tokens each word counts as it sits in a text (after a
// space, and after itself), and how many tokens the chat template adds. Word counts come from the server's POST /tokenize when it has one
// (Text; cheap, no prefill) and from usage.prompt_tokens otherwise
// (Prompt; Ollama); the template's overhead and the final additivity
// checks always come from usage, because usage is what the records keep.
type Calibrator struct {
	// Prompt counts a one-message chat prompt (Usage); required.
	Prompt PromptCounter
	// Text counts a text alone (Server's POST /tokenize); nil when the
	// server has no tokenizer endpoint, then word counts come from Prompt.
	Text Counter
	// Want is how many counted words are enough; 0 means 256.
	Want int
	// MaxRequests bounds the requests the word search sends; 0 means 500.
	MaxRequests int
}

// Calibration is what Calibrate measured. A text of Anchor followed by
// Words (joined by single spaces, in any order, repeats allowed) whose
// Tokens sum to n-1 is sent as a chat prompt of Overhead+n tokens.
type Calibration struct {
	// Method is how the words were counted: MethodServer (the server's
	// POST /tokenize) or MethodUsage (usage.prompt_tokens alone).
	Method Method
	// Anchor is the word every prompt text starts with: the first word
	// of a message counts differently in many tokenizers (no leading
	// space), so it is one fixed word, measured with the template.
	Anchor string
	// Overhead is the prompt tokens beyond the text's count: the chat
	// template's tokens (and the anchor's own extra ones), usage's
	// prompt_tokens for the anchor alone minus 1.
	Overhead int
	// Words are the candidates kept, in the candidates' order, with
	// their counts (1 to 16 tokens, the same after a space and after
	// themselves); Words[0] is Anchor, a one-token word.
	Words []Word
	// Tried is how many candidates were counted.
	Tried int
	// Requests is how many requests the calibration sent.
	Requests int
}

// Word is a word and the tokens a server counts for it inside a text.
type Word struct {
	Text   string
	Tokens int
}

// minWords is the fewest words a calibration accepts: fewer would make
// prompts of a handful of repeated words.
const minWords = 8

// maxWordTokens is the most tokens a kept word may count: a prompt stays
// mostly words, not byte tokens.
const maxWordTokens = 16

// checkWords is the length of the random text the additivity check sends.
const checkWords = 64

// Calibrate counts candidates (distinct words without spaces) on the
// server and returns the calibration. It errs when a request fails (the
// error names the endpoint), when fewer than 8 candidates are kept or
// none counts one token, or when the server does not add up: a text of
// kept words after the anchor must count the anchor's prompt tokens plus
// the words' counts, for the words in order and for a random text of 64
// of them; the error gives both numbers.
func (c Calibrator) Calibrate(ctx context.Context, candidates []string) (*Calibration, error) {
	if c.Prompt == nil {
		return nil, fmt.Errorf("tokens: calibration: no prompt counter")
	}
	if len(candidates) < 2 {
		return nil, fmt.Errorf("tokens: calibration: %d candidate words: want at least 2", len(candidates))
	}
	want, budget := c.Want, c.MaxRequests
	if want <= 0 {
		want = 256
	}
	if budget <= 0 {
		budget = 500
	}
	cal := &Calibration{Method: MethodUsage}
	count := func(text string) (int, error) {
		cal.Requests++
		if c.Text != nil {
			return c.Text.Count(ctx, text)
		}
		return c.Prompt.PromptTokens(ctx, text)
	}
	if c.Text != nil {
		cal.Method = MethodServer
	}
	s := search{lead: candidates[0], count: count}
	var err error
	if s.base, err = count(s.lead); err != nil {
		return nil, fmt.Errorf("tokens: calibration: %w", err)
	}
	rest := candidates[1:]
	for len(rest) > 0 && len(s.keep) < want && cal.Requests < budget {
		k := min(s.batchSize(), len(rest))
		if err := s.probe(rest[:k], -1); err != nil {
			return nil, fmt.Errorf("tokens: calibration: %w", err)
		}
		s.tried += k
		rest = rest[k:]
	}
	cal.Tried = s.tried
	anchor := slices.IndexFunc(s.keep, func(w Word) bool { return w.Tokens == 1 })
	if len(s.keep) < minWords || anchor < 0 {
		return nil, fmt.Errorf("tokens: calibration: %d of %d words counted (want at least %d), %d of them one token (want at least 1)",
			len(s.keep), s.tried, minWords, s.singles())
	}
	// The anchor first, the other words in order.
	cal.Words = append([]Word{s.keep[anchor]}, slices.Delete(slices.Clone(s.keep), anchor, anchor+1)...)
	cal.Anchor = cal.Words[0].Text
	if err := cal.measureOverhead(ctx, c.Prompt); err != nil {
		return nil, err
	}
	return cal, nil
}

// measureOverhead sets Overhead from usage and checks that texts of the
// kept words add up, with the template, as the word search found.
func (cal *Calibration) measureOverhead(ctx context.Context, p PromptCounter) error {
	prompt := func(text string) (int, error) {
		cal.Requests++
		n, err := p.PromptTokens(ctx, text)
		if err != nil {
			return 0, fmt.Errorf("tokens: calibration: %w", err)
		}
		return n, nil
	}
	anchor, err := prompt(cal.Anchor)
	if err != nil {
		return err
	}
	cal.Overhead = anchor - 1
	r := rand.New(rand.NewPCG(1, 2))
	drawn := make([]Word, checkWords)
	for i := range drawn {
		drawn[i] = cal.Words[r.IntN(len(cal.Words))]
	}
	for _, words := range [][]Word{cal.Words[1:], drawn} {
		var b strings.Builder
		b.WriteString(cal.Anchor)
		sum := 0
		for _, w := range words {
			b.WriteString(" " + w.Text)
			sum += w.Tokens
		}
		got, err := prompt(b.String())
		if err != nil {
			return err
		}
		if got != anchor+sum {
			return fmt.Errorf("tokens: calibration: the server does not add up: usage.prompt_tokens is %d for the anchor %q alone and %d with %d words of %d counted tokens after it (want %d)",
				anchor, cal.Anchor, got, len(words), sum, anchor+sum)
		}
	}
	return nil
}

// search is a group test: a batch of words, each written twice ("a a b
// b"), after the lead word counts twice its length exactly when every
// word is one token (no word counts less); a failed batch is halved until
// each word's own count is known.
type search struct {
	lead  string
	base  int // count of lead alone
	count func(string) (int, error)
	keep  []Word
	tried int
}

// singles is how many kept words count one token.
func (s *search) singles() int {
	n := 0
	for _, w := range s.keep {
		if w.Tokens == 1 {
			n++
		}
	}
	return n
}

// batchSize is the group size for the single-token share seen so far:
// large where nearly every word is one token (a real model's vocabulary),
// one where few are (the test model), so a batch rarely fails.
func (s *search) batchSize() int {
	if s.tried == 0 {
		return 16
	}
	switch p := float64(s.singles()) / float64(s.tried); {
	case p >= 0.9:
		return 16
	case p >= 0.75:
		return 8
	case p >= 0.5:
		return 4
	case p >= 0.3:
		return 2
	}
	return 1
}

// sum counts batch after the lead, each word twice, minus the lead's count.
func (s *search) sum(batch []string) (int, error) {
	var b strings.Builder
	b.WriteString(s.lead)
	for _, w := range batch {
		b.WriteString(" " + w + " " + w)
	}
	n, err := s.count(b.String())
	return n - s.base, err
}

// probe keeps batch's words with their counts (a word whose doubled
// count is odd or above 2·maxWordTokens is dropped); known is batch's sum
// when already known (a failed batch's right half: its sum less the
// left's), -1 otherwise.
func (s *search) probe(batch []string, known int) error {
	sum := known
	if sum < 0 {
		var err error
		if sum, err = s.sum(batch); err != nil {
			return err
		}
	}
	if sum == 2*len(batch) {
		for _, w := range batch {
			s.keep = append(s.keep, Word{Text: w, Tokens: 1})
		}
		return nil
	}
	if len(batch) == 1 {
		if sum%2 == 0 && sum > 0 && sum <= 2*maxWordTokens {
			s.keep = append(s.keep, Word{Text: batch[0], Tokens: sum / 2})
		}
		return nil
	}
	h := len(batch) / 2
	left, err := s.sum(batch[:h])
	if err != nil {
		return err
	}
	if err := s.probe(batch[:h], left); err != nil {
		return err
	}
	return s.probe(batch[h:], sum-left)
}
