package stream

import (
	"unicode"
	"unicode/utf8"
)

// Piece classes of countPieces.
const (
	pieceNone = iota
	pieceLetter
	pieceDigit
	pieceSymbol
	pieceIdeograph
)

// countPieces counts the word pieces of text the way a BPE tokenizer's
// pre-split cuts it (GPT-2's and its successors' regular expression, in
// simplified form): a run of letters, a run of digits or a run of other
// symbols is one piece, together with the one space before it; a CJK
// character (Han, kana, Hangul) is a piece of its own; white space
// beyond one space before a piece, or at the end of the text, is one
// more. So "Hello" is 1 piece, " world, how are" 4 and `{"city": "Paris"}`
// 6, each the tokens cl100k makes of it. It is a measure of how much
// text a chunk carried, for apportioning a stream's tokens among its
// chunks (MeasureDecode's DecodeByContent), not a tokenizer: a long rare
// word is one piece and several tokens. Allocation-free.
func countPieces(b []byte) int {
	n, prev, spaces := 0, pieceNone, 0
	for i := 0; i < len(b); {
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		i += size
		class := classOf(r)
		if class == pieceNone {
			spaces++
			prev = pieceNone
			continue
		}
		if spaces > 1 {
			n++
		}
		spaces = 0
		if class != prev || class == pieceIdeograph {
			n++
		}
		prev = class
	}
	if spaces > 0 {
		n++
	}
	return n
}

// classOf is the piece class of r; pieceNone for white space.
func classOf(r rune) int {
	if r < utf8.RuneSelf {
		switch c := byte(r); {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			return pieceNone
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			return pieceLetter
		case '0' <= c && c <= '9':
			return pieceDigit
		}
		return pieceSymbol
	}
	switch {
	case unicode.IsSpace(r):
		return pieceNone
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
		return pieceIdeograph
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return pieceLetter
	case unicode.IsDigit(r):
		return pieceDigit
	}
	return pieceSymbol
}

// textPieces is DecodeSpan.Pieces: 0 when no chunk carried text.
func (st *state) textPieces() int {
	if !st.sawText {
		return 0
	}
	return st.pieces
}

// choicePieces is the word pieces of the text one choice's delta carried:
// content, reasoning, refusal, and each tool call's name and arguments.
func choicePieces(c *decodedChoice) int {
	n := countPieces(c.content) + countPieces(c.reasoning) + countPieces(c.refusal)
	for i := range c.toolCalls {
		if f := c.toolCalls[i].Function; f != nil {
			n += countPieces([]byte(f.Name)) + countPieces([]byte(f.Arguments))
		}
	}
	return n
}
