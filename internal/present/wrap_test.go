package present_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/present"
)

func TestWrapFoldsAtSpacesWithAnIndent(t *testing.T) {
	got := present.Wrap("the quick brown fox jumps over the lazy dog", 20, "    ")
	assert.Equal(t, "the quick brown fox\n    jumps over the\n    lazy dog", got, "folds at the last space that fits, continuation lines indented")
	assert.Equal(t, "short line", present.Wrap("short line", 20, "  "), "a line that fits is untouched")
}

func TestWrapKeepsEveryLineWithinTheColumns(t *testing.T) {
	long := present.Evidence("sent: POST /v1/chat/completions " + strings.Repeat("{\"k\":\"\x1b[8m\u202e\"}", 40) + " got: HTTP 500 " + strings.Repeat("word ", 60))
	got := present.Wrap(long, 100, "        ")
	for _, l := range strings.Split(got, "\n") {
		assert.LessOrEqual(t, present.Width(l), 100, "line within 100 columns: %q", l)
	}
	assert.Equal(t, strings.ReplaceAll(long, " ", ""), strings.ReplaceAll(strings.ReplaceAll(got, "\n", ""), " ", ""), "nothing but spaces is added or lost")
	for _, l := range strings.Split(got, "\n") {
		assert.False(t, strings.HasSuffix(l, `\`) || strings.HasSuffix(l, `\x`) || strings.HasSuffix(l, `\x1`) || strings.HasSuffix(l, `\u202`), "no escape is split at a break: %q", l)
	}
}

func TestWrapSplitsAWordLongerThanALineBetweenEscapes(t *testing.T) {
	got := present.Wrap(strings.Repeat(`\x1b`, 10), 10, "")
	assert.Equal(t, `\x1b\x1b`+"\n"+`\x1b\x1b`+"\n"+`\x1b\x1b`+"\n"+`\x1b\x1b`+"\n"+`\x1b\x1b`, got, "split between escapes, never inside one")
}

func TestWidthCountsWideRunesTwice(t *testing.T) {
	assert.Equal(t, 4, present.Width("東京"), "two wide runes")
	assert.Equal(t, 4, present.Width("cafe\u0301"), "a combining mark takes no column")
}

func TestFitCutsBetweenEscapes(t *testing.T) {
	assert.Equal(t, `ab\x1b`, present.Fit(`ab\x1b\u202e`, 8), "the escape that does not fit is left out whole")
	assert.Equal(t, "東", present.Fit("東京", 3), "a wide rune that does not fit is left out")
	assert.Equal(t, "short", present.Fit("short", 10), "a line that fits is whole")
}
