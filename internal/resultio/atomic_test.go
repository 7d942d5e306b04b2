package resultio

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err, "read dir")
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileAtomicReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	require.NoError(t, WriteFileAtomic(path, []byte("old"), 0o644), "first write")
	require.NoError(t, WriteFileAtomic(path, []byte("new"), 0o600), "second write")
	b, err := os.ReadFile(path)
	require.NoError(t, err, "read back")
	assert.Equal(t, "new", string(b), "content replaced")
	fi, err := os.Stat(path)
	require.NoError(t, err, "stat")
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "perm applied")
	assert.Equal(t, []string{"out.json"}, dirEntries(t, dir), "no temp files left behind")
}

func TestWriteFileAtomicFailureKeepsOldContent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	require.NoError(t, WriteFileAtomic(path, []byte("earlier result"), 0o644), "first write")

	injected := errors.New("disk full")
	t.Run("write fails", func(t *testing.T) {
		old := afterTempWrite
		afterTempWrite = func(*os.File) error { return injected }
		t.Cleanup(func() { afterTempWrite = old })
		err := WriteFileAtomic(path, []byte("half"), 0o644)
		assert.ErrorIs(t, err, injected, "the write error is returned")
	})
	t.Run("rename fails", func(t *testing.T) {
		old := renameFile
		renameFile = func(string, string) error { return injected }
		t.Cleanup(func() { renameFile = old })
		err := WriteFileAtomic(path, []byte("never"), 0o644)
		assert.ErrorIs(t, err, injected, "the rename error is returned")
	})
	b, err := os.ReadFile(path)
	require.NoError(t, err, "read back")
	assert.Equal(t, "earlier result", string(b), "a failed write leaves the earlier content intact")
	assert.Equal(t, []string{"out.csv"}, dirEntries(t, dir), "temp files are removed after failures")
}

func TestWriteFileAtomicOntoDirectoryFails(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(target, 0o755), "mkdir")
	require.NoError(t, os.WriteFile(filepath.Join(target, "keep"), []byte("x"), 0o644), "seed")
	err := WriteFileAtomic(target, []byte("data"), 0o644)
	assert.Error(t, err, "cannot replace a non-empty directory")
	assert.FileExists(t, filepath.Join(target, "keep"), "directory content untouched")
	assert.ElementsMatch(t, []string{"sub"}, dirEntries(t, dir), "temp file removed")

	err = WriteFileAtomic(filepath.Join(dir, "missing", "x"), []byte("d"), 0o644)
	assert.ErrorIs(t, err, os.ErrNotExist, "missing parent directory is reported")
}
