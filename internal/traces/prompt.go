package traces

import "strings"

// DefaultBlockSize is the tokens per hash id of a Mooncake trace (its
// published traces use 512).
const DefaultBlockSize = 512

// Filler writes text of about n tokens, the same text for the same key:
// what a prompt's block is made of. Words is the builtin one; a token
// counter calibrated against the server can stand in for it.
type Filler interface {
	Fill(b *strings.Builder, key uint64, n int)
}

// Prompts builds the prompt text of a trace request: one block of
// BlockSize tokens per hash id, filled with the id as the key, so equal
// ids give byte-identical text and a shared run of ids a shared prefix;
// then the tokens beyond the blocks (input_length minus the blocks'
// tokens, or all of them without hash ids) from a key unique to the
// request's line, so nothing beyond the trace's reuse is shared. A last
// block the input length cuts short is that block's text cut to the
// tokens left (a prefix of the full block's text). Extra hash ids past the
// input length are ignored, as the trace's input_length is the prompt's
// length.
type Prompts struct {
	// BlockSize is the tokens per hash id; 0 means DefaultBlockSize.
	BlockSize int
	// Filler writes the text; nil means Words.
	Filler Filler
}

// Text returns r's prompt text (see Prompts).
func (p Prompts) Text(r Request) string {
	bs := p.BlockSize
	if bs <= 0 {
		bs = DefaultBlockSize
	}
	f := p.Filler
	if f == nil {
		f = Words{}
	}
	var b strings.Builder
	b.Grow(r.InputTokens * 6)
	left := r.InputTokens
	for _, id := range r.HashIDs {
		if left == 0 {
			break
		}
		n := min(bs, left)
		f.Fill(&b, blockKey(id), n)
		left -= n
	}
	if left > 0 {
		f.Fill(&b, uniqueKey(r.Line), left)
	}
	return b.String()
}

// Expected returns the prompt tokens of r a prefix cache can serve when
// every earlier request of the trace is cached: the tokens of r's leading
// blocks whose ids an earlier request already sent (seen holds them; Text's
// blocks). It adds r's full blocks to seen. A partial last block is not
// counted: caches reuse whole blocks.
func (p Prompts) Expected(r Request, seen map[int64]bool) int {
	bs := p.BlockSize
	if bs <= 0 {
		bs = DefaultBlockSize
	}
	cached, prefix, left := 0, true, r.InputTokens
	for _, id := range r.HashIDs {
		if left < bs {
			break
		}
		if prefix && seen[id] {
			cached += bs
		} else {
			prefix = false
		}
		seen[id] = true
		left -= bs
	}
	return cached
}

// blockKey and uniqueKey keep block ids and line numbers apart.
func blockKey(id int64) uint64  { return uint64(id) << 1 }
func uniqueKey(line int) uint64 { return uint64(line)<<1 | 1 }

// Words is the builtin Filler: n words drawn by a hash of (key, position)
// from a list of common English words, each one token in the GPT
// (cl100k_base, o200k_base) and Llama tokenizers when written with its
// leading space, so n words are about n tokens (a chat template adds its
// own; the record's usage.prompt_tokens says what the server counted).
type Words struct{}

// Fill writes n words for key.
func (Words) Fill(b *strings.Builder, key uint64, n int) {
	for i := range n {
		h := splitmix(key*0x100000001b3 ^ uint64(i))
		b.WriteByte(' ')
		b.WriteString(words[h%uint64(len(words))])
	}
}

// splitmix is SplitMix64's finalizer: a cheap, well-mixed hash.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

var words = strings.Fields(`the of and to in is was for that with as on by at from his an were are which this be or had not
but first one their its new after who they have her she two been other when there all during
into school time may years more most only over city some world would where later up such used
many can state about national out known university united then made film through than being
well number people three both between year under high while part series since second early work
each any team life group same much long day water make back good great few house book game line
place home name small light power war area room end case fact point body money story music
family air road kind land sea art way open true hand word week order level night age field
river black white red green blue south north east west king law market sound table month plan
view rule base price`)
