package resultio

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// An output that cannot be written (its "directory" is a regular file)
// keeps the payload as JSON next to it, never over an earlier kept file.
func TestWriteFileOrKeepKeepsThePayloadAsJSON(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, []byte("x"), 0o644))
	p := &results.Payload{RunID: "run-1"}
	want, err := FormatJSON(p)
	require.NoError(t, err)

	out := filepath.Join(blocker, "out.json") // under a regular file: MkdirAll fails
	kept, werr, keepErr := WriteFileOrKeep(p, out)
	require.Error(t, werr, "the output cannot be written")
	require.NoError(t, keepErr)
	assert.NotEqual(t, out, kept, "kept elsewhere")
	got, err := os.ReadFile(kept)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "the kept file is the payload's JSON")
	t.Cleanup(func() { _ = os.Remove(kept) }) // it went to os.TempDir()

	okPath := filepath.Join(dir, "ok.json")
	kept, werr, keepErr = WriteFileOrKeep(p, okPath)
	assert.NoError(t, werr)
	assert.NoError(t, keepErr)
	assert.Empty(t, kept, "nothing kept when the output was written")
	got, err = os.ReadFile(okPath)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

func TestKeepPartialNeverOverwrites(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs.json")
	first, err := KeepPartial(out, []byte(`{"run":1}`))
	require.NoError(t, err)
	second, err := KeepPartial(out, []byte(`{"run":2}`))
	require.NoError(t, err)
	assert.Equal(t, out+".partial.json", first)
	assert.Equal(t, out+".partial.2.json", second)
	b, err := os.ReadFile(first)
	require.NoError(t, err)
	assert.JSONEq(t, `{"run":1}`, string(b), "the first kept file is untouched")
}

func TestFormatCapacityKeepsThresholdsReadable(t *testing.T) {
	b, err := FormatCapacity(results.Capacity{Reason: "ttft_p95_ms <= 500 & more"})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"ttft_p95_ms <= 500 & more"`, "no \\u003c escapes")
	assert.NotEqual(t, byte('\n'), b[len(b)-1], "no trailing newline")
	assert.Contains(t, string(b), "\n  \"", "indented")
}
