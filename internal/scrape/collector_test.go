package scrape

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/benchserve/benchserve/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type prefixEngine struct{ hits, misses, saved int }

func (e *prefixEngine) Stats() map[string]any {
	return map[string]any{"prefix_cache": map[string]any{"hits": e.hits, "misses": e.misses, "tokens_saved": e.saved}}
}

// TestFetchReadsOurCollector checks the fix of the reference bug: the
// collector's own exposition is read (dialect vllm-mlx), and deltas move.
func TestFetchReadsOurCollector(t *testing.T) {
	c := metrics.New()
	c.Configure(true)
	eng := &prefixEngine{hits: 1, misses: 2, saved: 16}
	srv := httptest.NewServer(c.Handler(eng, nil))
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()

	before, err := Fetch(context.Background(), srv.Client(), srv.URL, "")
	require.NoError(t, err, "fetch before")
	assert.Equal(t, DialectVLLMMLX, before.Dialect, "our collector speaks the vllm-mlx dialect")

	eng.hits, eng.saved = 3, 48
	after, err := Fetch(context.Background(), srv.Client(), srv.URL, "")
	require.NoError(t, err, "fetch after")
	require.NotNil(t, Delta(before.Hits, after.Hits), "hits delta available")
	assert.Equal(t, int64(2), *Delta(before.Hits, after.Hits), "hits delta")
	assert.Equal(t, int64(0), *Delta(before.Misses, after.Misses), "misses delta")
	assert.Equal(t, int64(32), *Delta(before.TokensSaved, after.TokensSaved), "tokens saved delta")
}
