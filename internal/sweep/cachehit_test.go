package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
)

// TestRunCacheHitRate pins cache_hits, cache_misses, tokens_saved and
// cache_hit_rate = hits/(hits+misses) as deltas over one run, on the
// fixture's prefix cache (a request counts one hit when at least one
// 16-token block of its prompt prefix is cached, else one miss).
//
// The prompt set has a long prompt A (2 blocks with its role token) twice
// and a short prompt B (no full block, always a miss), sent at concurrency
// 3 with no warmup and no preflight. Repetition 0: the first A misses, the
// second hits 32 tokens, B misses: 1/3. Repetition 1: both As hit: 2/3.
func TestRunCacheHitRate(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	long := strings.TrimSpace(strings.Repeat("cached ", 31))
	require.Len(t, strings.Fields(long), 31, "prompt A is 31 words, 32 tokens with the role")
	set := `[[{"role":"user","content":"` + long + `"}],[{"role":"user","content":"` + long + `"}],[{"role":"user","content":"short one"}]]`
	path := filepath.Join(t.TempDir(), "cache.json")
	require.NoError(t, os.WriteFile(path, []byte(set), 0o600))

	r, err := runner.New(context.Background(), runner.Config{URL: srv.URL, Model: fixtures.DefaultModel})
	require.NoError(t, err, "connect")
	defer r.Close()
	outs, err := Run(context.Background(), r, Config{
		PromptSets: []string{path}, Concurrencies: []int{3},
		Repetitions: 2, SkipPreflightTokenCount: true, NoValidate: true,
	})
	require.NoError(t, err, "sweep against the fixture")
	require.Len(t, outs, 2, "one concurrency x two repetitions")

	assert.Equal(t, 1, outs[0].Row.CacheHits, "rep 0: the second A hits")
	assert.Equal(t, 2, outs[0].Row.CacheMisses, "rep 0: the first A and B miss")
	assert.Equal(t, 32, outs[0].Row.TokensSaved, "rep 0: one hit of 2 blocks of 16 tokens")
	assert.Equal(t, 1.0/3.0, outs[0].Row.CacheHitRate, "rep 0: hit rate 1/(1+2)")

	assert.Equal(t, 2, outs[1].Row.CacheHits, "rep 1: both As hit")
	assert.Equal(t, 1, outs[1].Row.CacheMisses, "rep 1: B misses")
	assert.Equal(t, 64, outs[1].Row.TokensSaved, "rep 1: two hits of 32 tokens")
	assert.Equal(t, 2.0/3.0, outs[1].Row.CacheHitRate, "rep 1: hit rate 2/(2+1)")
}
