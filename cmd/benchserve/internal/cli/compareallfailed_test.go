package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A candidate whose every request failed answered nothing: the worst
// regression (exit 1, a line saying so), not bad input. A base like it
// has nothing to compare with: exit 2 naming the base.
func TestCompareAllFailedCandidateIsARegression(t *testing.T) {
	dir := t.TempDir()
	base := greetRun(t, dir, 3)
	p := readPayload(t, base)
	for i := range p.Results {
		r := &p.Results[i]
		r.Error, r.OK, r.Quality.OK = "connection refused", false, false
		r.Quality.Issues = []string{"request failed: connection refused"}
	}
	data, err := json.Marshal(p)
	require.NoError(t, err)
	dead := filepath.Join(dir, "dead.json")
	require.NoError(t, os.WriteFile(dead, data, 0o644))

	res := invoke(t, "compare", base, dead)
	assert.Equal(t, ExitFailed, res.code, "stderr: %s", res.stderr)
	assert.Contains(t, res.stdout, "candidate "+dead+": every request failed (3 of 3): the candidate answered nothing (first error: connection refused)")
	assert.Contains(t, res.stdout, "verdict: REGRESSION")

	res = invoke(t, "compare", dead, base)
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, "base "+dead+": every request failed (3 of 3): nothing was measured to compare the candidate with")
	for i := range p.Results {
		p.Results[i].Error = "no route to host"
	}
	data, err = json.Marshal(p)
	require.NoError(t, err)
	dead2 := filepath.Join(dir, "dead2.json")
	require.NoError(t, os.WriteFile(dead2, data, 0o644))
	res = invoke(t, "compare", dead, dead2)
	assert.Equal(t, ExitUsage, res.code, "both sides silent: nothing to compare")
	assert.Contains(t, res.stderr, "base "+dead+": every request failed")
}
