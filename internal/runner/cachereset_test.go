package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// TestRefusedCacheResetIsReported: a server without DELETE /v1/cache
// (Ollama: 404, though it keeps a prefix cache) refuses the reset; Run
// hands each event to RunOptions.CacheReset and CacheResetNote says what
// that means, so a caller can tell the user, not only the JSON.
func TestRefusedCacheResetIsReported(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{NoCacheReset: true})
	w := load(t, `{"cases":[{"id":"a","messages":[{"role":"user","content":"go"}]},{"id":"b","messages":[{"role":"user","content":"go"}]}]}`)
	for _, policy := range []string{"before-run", "before-case"} {
		var seen []results.CacheEvent
		p, err := newRunner(t, srv).Run(context.Background(), w, runner.RunOptions{CachePolicy: policy,
			CacheReset: func(ev results.CacheEvent) { seen = append(seen, ev) }})
		require.NoError(t, err, "the run goes on")
		assert.Equal(t, p.CachePolicy.Events, seen, "%s: every event handed to the callback", policy)
		require.NotEmpty(t, seen, "%s: resets attempted", policy)
		assert.Equal(t, `cache reset `+policy+` refused: DELETE /v1/cache: HTTP 404 (404 page not found); the server's cache was not cleared, so "`+policy+`" measured as "preserve"`,
			runner.CacheResetNote(seen[0].Scope, seen[0].Event), "%s: what the user is told", policy)
	}
	ok := fixtures.Start(t, fixtures.Options{})
	ev := newRunner(t, ok).ClearCache(context.Background())
	assert.Empty(t, runner.CacheResetNote("before-run", ev), "a reset that worked needs no word")
	assert.Empty(t, runner.CacheResetNote("before-run", results.CacheReset{}), "no reset attempted")
}
