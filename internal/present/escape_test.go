package present_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/present"
)

// poison holds every kind of character a server can use to fool a
// reader: an OSC title, a BEL, a hidden-text SGR, a CR that returns to
// the start of the line, a right-to-left override, a C1 CSI, DEL, a zero
// width space, an isolate, and a byte that is not UTF-8.
const poison = "a\x1b]0;title\x07b\x1b[8mc\rd\u202ee\u009bf\x7fg\u200bh\u2066i\xffj"

func TestEscapeShowsEveryUnsafeCharacter(t *testing.T) {
	got := present.Line(poison)
	assert.Equal(t, `a\x1b]0;title\ab\x1b[8mc\rd\u202ee\u009bf\x7fg\u200bh\u2066i\xffj`, got, "every control, format character and bad byte is a visible escape")
	for _, r := range got {
		assert.False(t, present.Unsafe(r), "no unsafe rune %U is left in %q", r, got)
	}
	assert.True(t, utf8.ValidString(got), "the result is valid UTF-8")
}

func TestEscapeKeepsWhatIsSafe(t *testing.T) {
	for _, s := range []string{"", "plain ascii ~!@#", "naïve café 東京 🙂", `back\slash \x1b as text`} {
		assert.Equal(t, s, present.Line(s), "%q is shown as it is", s)
	}
	assert.Equal(t, "two\nlines\tand a tab", present.Escape("two\nlines\tand a tab"), "Escape keeps newline and tab (a block)")
	assert.Equal(t, `two\nlines\tand a tab`, present.Line("two\nlines\tand a tab"), "Line escapes them (one line)")
}

func TestUnsafeCoversTheBidiControls(t *testing.T) {
	for _, r := range []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0xfeff, 0x2028, 0x2029, 0xe0001, 0x80, 0x9f} {
		assert.True(t, present.Unsafe(r), "%U is unsafe", r)
	}
	for _, r := range []rune{' ', 'a', '~', 0xa0, 'é', '東', 0x1f642} {
		assert.False(t, present.Unsafe(r), "%U is safe", r)
	}
}

func TestEscapeUnicodeKeepsAJSONValue(t *testing.T) {
	in := map[string]string{"model": "m\u202e\u0085\u007f\U000e0041x", "plain": "東京"}
	data, err := json.Marshal(in) // control bytes below 0x20 are escaped by encoding/json already
	require.NoError(t, err, "setup")
	escaped := present.EscapeUnicode(string(data))
	for _, r := range escaped {
		assert.False(t, present.Unsafe(r), "no unsafe rune %U in %s", r, escaped)
	}
	assert.Contains(t, escaped, `\u202e`, "the override is visible")
	assert.Contains(t, escaped, `\udb40\udc41`, "a tag character beyond the BMP is a surrogate pair")
	var back map[string]string
	require.NoError(t, json.Unmarshal([]byte(escaped), &back), "the escaped document is still JSON: %s", escaped)
	assert.Equal(t, in, back, "and decodes to the same value")
}
