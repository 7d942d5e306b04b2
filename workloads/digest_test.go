package workloads_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/workloads"
)

// The digest names the resolved content: one file by two paths is one
// workload, an edited file (max_tokens 20 → 3) or an edited request file
// another.
func TestDigestIsTheResolvedContent(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "req.json")
	require.NoError(t, os.WriteFile(req, []byte(`{"messages": [{"role": "user", "content": "hi"}]}`), 0o644))
	body := `{"name": "w", "cases": [{"id": "a", "request_path": "req.json", "max_tokens": 20}]}`
	path := filepath.Join(dir, "w.json")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	abs, err := workloads.Load(path)
	require.NoError(t, err)
	wd, err := os.Getwd()
	require.NoError(t, err)
	relPath, err := filepath.Rel(wd, path)
	require.NoError(t, err)
	rel, err := workloads.Load(relPath)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(abs.Digest(), "sha256:"), "a sha256 digest: %s", abs.Digest())
	assert.Equal(t, abs.Digest(), rel.Digest(), "one file by two paths: one digest")

	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(body, `"max_tokens": 20`, `"max_tokens": 3`, 1)), 0o644))
	edited, err := workloads.Load(path)
	require.NoError(t, err)
	assert.NotEqual(t, abs.Digest(), edited.Digest(), "an edited file: another digest")

	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	require.NoError(t, os.WriteFile(req, []byte(`{"messages": [{"role": "user", "content": "hello"}]}`), 0o644))
	reqEdited, err := workloads.Load(path)
	require.NoError(t, err)
	assert.NotEqual(t, abs.Digest(), reqEdited.Digest(), "an edited request file: another digest")
}
