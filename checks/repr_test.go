package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Expected values are CPython 3.11's repr() of the same strings.
func TestPyRepr(t *testing.T) {
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
		assert.Equalf(t, tc.want, pyRepr(tc.in), "pyRepr(%q)", tc.in)
	}
}

func TestPyReprList(t *testing.T) {
	assert.Equal(t, `[]`, pyReprList(nil), "empty list")
	assert.Equal(t, `['a', "b'c", 'd\n']`, pyReprList([]string{"a", "b'c", "d\n"}), "mixed list")
	assert.Equal(t, `None`, pyReprOptional(""), "missing value is None")
	assert.Equal(t, `'stop'`, pyReprOptional("stop"), "present value is repr'd")
}
