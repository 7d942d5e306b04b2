package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file given twice is said on stderr, one line naming it: by path or
// by content, twice on one side or on both. When the candidate is the
// base (every input on both sides) the comparison is meaningless: exit 2.
func TestCompareWarnsOfAFileGivenTwice(t *testing.T) {
	dir := t.TempDir()
	a := writeCapacity(t, dir, "a.json", []float64{5, 10}, []float64{11, 20})
	b := writeCapacity(t, dir, "b.json", []float64{5, 10}, []float64{11, 21})
	data, err := os.ReadFile(a)
	require.NoError(t, err)
	copyA := filepath.Join(dir, "copy-of-a.json")
	require.NoError(t, os.WriteFile(copyA, data, 0o644))

	warnings := func(stderr string) []string {
		var out []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "benchserve compare: warning: ") {
				out = append(out, l)
			}
		}
		return out
	}
	res := invoke(t, "compare", a, a, "--", b)
	assert.Equal(t, ExitOK, res.code, res.stderr)
	assert.Equal(t, []string{"benchserve compare: warning: " + a + " is given twice on the base side (its requests count twice)"}, warnings(res.stderr))

	res = invoke(t, "compare", a, "--", b, copyA)
	assert.Equal(t, ExitOK, res.code, res.stderr)
	assert.Equal(t, []string{"benchserve compare: warning: " + a + " and " + copyA + " hold the same content, given on both sides"}, warnings(res.stderr))

	res = invoke(t, "compare", a, b)
	assert.Empty(t, warnings(res.stderr), "two files: no warning")

	for _, args := range [][]string{{a, a}, {a, copyA}} {
		res = invoke(t, append([]string{"compare"}, args...)...)
		assert.Equal(t, ExitUsage, res.code, "%v: the candidate is the base", args)
		assert.Contains(t, res.stderr, "benchserve compare: the candidate is the base: "+args[1]+" is given on both sides", "%v", args)
		assert.Empty(t, res.stdout, "%v: nothing compared", args)
	}
}
