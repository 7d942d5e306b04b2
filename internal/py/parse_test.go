package py

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Expected values are CPython 3.11's int(s) and float(s) (None where they
// raise ValueError).
func TestParseIntFollowsPythonInt(t *testing.T) {
	for s, want := range map[string]int64{"42": 42, " -7 ": -7, "+5": 5, "1_000": 1000, "0": 0} {
		n, ok := ParseInt(s)
		assert.True(t, ok, "int(%q)", s)
		assert.Equal(t, want, n, "int(%q)", s)
	}
	for _, s := range []string{"", "3.5", "abc", "_1", "1_", "1__0", "0x10", "1e3"} {
		_, ok := ParseInt(s)
		assert.False(t, ok, "int(%q) raises", s)
	}
}

func TestParseFloatFollowsPythonFloat(t *testing.T) {
	for s, want := range map[string]float64{"3.5": 3.5, " 1e3 ": 1000, "1_0.5": 10.5, "-0.25": -0.25, "1e999": math.Inf(1), "-Infinity": math.Inf(-1), "INF": math.Inf(1)} {
		f, ok := ParseFloat(s)
		assert.True(t, ok, "float(%q)", s)
		assert.Equal(t, want, f, "float(%q)", s)
	}
	f, ok := ParseFloat("nan")
	assert.True(t, ok && math.IsNaN(f), "float('nan')")
	for _, s := range []string{"", "  ", "abc", "0x1p-2", "0x10", "1__0", "_1", "1e"} {
		_, ok := ParseFloat(s)
		assert.False(t, ok, "float(%q) raises", s)
	}
}
