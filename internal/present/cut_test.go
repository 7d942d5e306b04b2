package present_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/present"
)

func TestCutSaysHowMuchWasCut(t *testing.T) {
	name := strings.Repeat("x", 10_240)
	got := present.Name(name)
	assert.Equal(t, strings.Repeat("x", present.NameLimit)+"…(+10,140 bytes)", got, "a 10 KB name keeps its first NameLimit bytes and says how many were cut")
	assert.Equal(t, "short", present.Name("short"), "a short name is not cut")
	assert.Equal(t, strings.Repeat("y", present.NameLimit), present.Name(strings.Repeat("y", present.NameLimit)), "a name of exactly the limit is not cut")
}

func TestCutNeverSplitsAnEscapeOrARune(t *testing.T) {
	for _, s := range []string{strings.Repeat("\x1b", 50), strings.Repeat("東", 50), strings.Repeat("\u202e", 50)} {
		for limit := 1; limit < 40; limit++ {
			got := present.Cut(s, limit)
			kept, _, found := strings.Cut(got, "…(+")
			assert.True(t, found, "%q cut at %d has a mark: %q", s[:3], limit, got)
			assert.LessOrEqual(t, len(kept), limit, "at most %d bytes kept: %q", limit, kept)
			assert.Equal(t, kept, present.Line(s)[:len(kept)], "the kept part is a prefix of the escaped string")
			assert.True(t, strings.HasPrefix(present.Line(s)[len(kept):], present.Line(s[:3])), "the cut is at an escape or rune boundary (limit %d): %q", limit, got)
		}
	}
}

func TestCutMarkCountsTheSourceBytes(t *testing.T) {
	got := present.Cut(strings.Repeat("\x1b", 100), 8) // two escapes of 4 bytes kept
	assert.Equal(t, `\x1b\x1b…(+98 bytes)`, got, "the count is of the original's bytes, not of the escapes")
	assert.Equal(t, "…(+1 byte)", present.CutMark(1), "singular")
	assert.Equal(t, "…(+1,234,567 bytes)", present.CutMark(1234567), "thousands")
}

func TestShortenCutsAtARuneBoundaryWithoutEscaping(t *testing.T) {
	assert.Equal(t, "ab\x1b…(+3 bytes)", present.Shorten("ab\x1b東", 4), "a 3-byte rune that does not fit is left out whole; the control is not escaped")
	h, n := present.Head("short", 10)
	assert.Equal(t, "short", h, "a string within the limit is whole")
	assert.Zero(t, n, "nothing left out")
}
