package py

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Expected values are CPython 3.11's repr() of the same strings.
func TestRepr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"stop", `'stop'`},
		{"it's", `"it's"`},
		{`say "hi"`, `'say "hi"'`},
		{`both'"`, `'both\'"'`},
		{"tab\tnl\n\\ cr\r", `'tab\tnl\n\\ cr\r'`},
		{"\x00\x1f\x7f", `'\x00\x1f\x7f'`},
		{"\u00a0\u00ad", `'\xa0\xad'`},
		{"\u200b\u2028", `'\u200b\u2028'`},
		{"\U0001F600 é 世界", "'\U0001F600 é 世界'"},
		{"\U000e0001", `'\U000e0001'`},
		{"\ud7ff", `'\ud7ff'`},
		{"", `''`},
	} {
		assert.Equalf(t, tc.want, Repr(tc.in), "Repr(%q)", tc.in)
	}
}

func TestReprList(t *testing.T) {
	assert.Equal(t, `[]`, ReprList(nil), "empty list")
	assert.Equal(t, `['a', "b'c", 'd\n']`, ReprList([]string{"a", "b'c", "d\n"}), "mixed list")
	assert.Equal(t, `None`, ReprOrNone(""), "missing value is None")
	assert.Equal(t, `'stop'`, ReprOrNone("stop"), "present value is repr'd")
}
