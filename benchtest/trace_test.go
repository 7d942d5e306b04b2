package benchtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
)

// TestRunWorkloadReplaysATrace: a workload file whose generator is a
// Mooncake trace reaches go test through RunWorkload with a load: every
// line a request at its time, the cache verified in the summary.
func TestRunWorkloadReplaysATrace(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 40, "output_length": 2, "hash_ids": [0, 1, %d]}`+"\n", i*20, 2+i)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trace.jsonl"), []byte(b.String()), 0o600))
	wl := filepath.Join(dir, "trace.json")
	require.NoError(t, os.WriteFile(wl, []byte(`{"name": "trace", "generator": {"name": "mooncake", "dataset_path": "trace.jsonl", "trace_block_size": 16}}`), 0o600))
	p := benchtest.RunWorkload(t, wl, benchtest.WithURL(""), benchtest.WithLoad(benchtest.Load{MaxConcurrency: 1}))
	require.Len(t, p.Results, 6, "every line of the trace")
	require.NotNil(t, p.Summary.PromptCache, "the cache verified")
	assert.Equal(t, 5*32, p.Summary.PromptCache.ExpectedTokens, "blocks 0 and 1 shared by the 5 requests after the first")
	assert.Equal(t, p.Summary.PromptCache.ExpectedTokens, p.Summary.PromptCache.CachedTokens, "the fixture served them from its cache")
}
