package resultio

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

func TestWriteFileAtomicWritesThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "out.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755), "mkdir")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644), "target")
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("real/out.json", link), "relative symlink")

	require.NoError(t, WriteFileAtomic(link, []byte("new"), 0o644), "write through the link")
	fi, err := os.Lstat(link)
	require.NoError(t, err, "lstat link")
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is still a symlink, not replaced by a regular file")
	b, err := os.ReadFile(target)
	require.NoError(t, err, "read target")
	assert.Equal(t, "new", string(b), "the link's target got the data")
	assert.Equal(t, []string{"out.json"}, dirEntries(t, filepath.Dir(target)), "no temp file left next to the target")
}

func TestWriteFileAtomicDanglingSymlinkCreatesTarget(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.csv")
	target := filepath.Join(dir, "made.csv")
	require.NoError(t, os.Symlink(target, link), "dangling symlink")
	require.NoError(t, WriteFileAtomic(link, []byte("a,b\r\n"), 0o644), "write")
	fi, err := os.Lstat(link)
	require.NoError(t, err, "lstat")
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "link kept")
	b, err := os.ReadFile(target)
	require.NoError(t, err, "target created")
	assert.Equal(t, "a,b\r\n", string(b), "content")
}

func TestWriteFileAtomicDevNullStaysADevice(t *testing.T) {
	before, err := os.Stat(os.DevNull)
	require.NoError(t, err, "stat /dev/null")
	require.NotZero(t, before.Mode()&os.ModeDevice, "precondition: /dev/null is a device")
	require.NoError(t, WriteFile(&results.Payload{RunID: "abcd1234"}, os.DevNull), "WriteFile to /dev/null")
	require.NoError(t, WriteFileAtomic(os.DevNull, []byte("x"), 0o600), "WriteFileAtomic to /dev/null")
	after, err := os.Stat(os.DevNull)
	require.NoError(t, err, "stat /dev/null again")
	assert.Equal(t, before.Mode(), after.Mode(), "/dev/null is still the same character device with the same mode")
	assert.True(t, os.SameFile(before, after), "same inode: not replaced")
}

func TestWriteFileAtomicFIFOIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600), "mkfifo")
	got := make(chan []byte, 1)
	go func() {
		fh, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		defer fh.Close()
		b, _ := io.ReadAll(fh)
		got <- b
	}()
	require.NoError(t, WriteFileAtomic(fifo, []byte("through the pipe"), 0o644), "write to FIFO")
	assert.Equal(t, "through the pipe", string(<-got), "the FIFO's reader got the data")
	fi, err := os.Lstat(fifo)
	require.NoError(t, err, "lstat")
	assert.NotZero(t, fi.Mode()&os.ModeNamedPipe, "still a FIFO, not renamed over")
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "no chmod")
	assert.Equal(t, []string{"pipe.json"}, dirEntries(t, dir), "no temp file")
}

func TestWriteFileAtomicRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	err := WriteFileAtomic(dir, []byte("x"), 0o644)
	assert.ErrorIs(t, err, ErrNotRegular, "a directory is never replaced")
	fi, serr := os.Stat(dir)
	require.NoError(t, serr, "stat")
	assert.True(t, fi.IsDir(), "still a directory")
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "w.json")
	require.NoError(t, os.WriteFile(w, []byte("{}"), 0o644), "workload")
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(w, link), "symlink")
	hard := filepath.Join(dir, "hard.json")
	require.NoError(t, os.Link(w, hard), "hard link")
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755), "sub")
	subLink := filepath.Join(dir, "sublink")
	require.NoError(t, os.Symlink(sub, subLink), "dir symlink")
	t.Chdir(dir)

	assert.True(t, SameFile(w, w), "identical")
	assert.True(t, SameFile("w.json", w), "relative vs absolute")
	assert.True(t, SameFile(filepath.Join(dir, "sub", "..", "w.json"), w), "unclean path")
	assert.True(t, SameFile(link, w), "symlink to the file")
	assert.True(t, SameFile(hard, w), "hard link")
	assert.True(t, SameFile(filepath.Join(subLink, "new.json"), filepath.Join(sub, "new.json")), "missing file behind a symlinked directory")
	assert.False(t, SameFile(filepath.Join(dir, "other.json"), w), "different file")
	assert.False(t, SameFile("", w), "stdout is not a file")
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	require.NoError(t, os.WriteFile(small, []byte("0123456789"), 0o644), "setup")
	b, err := ReadFileLimit(small, 10)
	require.NoError(t, err, "at the limit is fine")
	assert.Equal(t, "0123456789", string(b), "content")
	_, err = ReadFileLimit(small, 9)
	assert.ErrorIs(t, err, ErrInputTooLarge, "one byte over")
	assert.ErrorContains(t, err, "small.json: input too large: 10 bytes, the limit is 9 bytes", "names file, size and limit")

	_, err = ReadFileLimit("/dev/zero", 1<<20)
	assert.ErrorIs(t, err, ErrNotAFile, "a device is refused without reading")
	_, err = ReadFileLimit(dir, 1<<20)
	assert.ErrorIs(t, err, ErrNotAFile, "a directory")
	_, err = ReadFileLimit(filepath.Join(dir, "missing"), 1)
	assert.ErrorIs(t, err, os.ErrNotExist, "missing files keep fs.ErrNotExist")

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600), "mkfifo")
	done := make(chan struct{})
	go func() {
		defer close(done)
		fh, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = fh.Write(make([]byte, 100))
		_ = fh.Close()
	}()
	_, err = ReadFileLimit(fifo, 50)
	assert.ErrorIs(t, err, ErrInputTooLarge, "a pipe is read up to the limit and refused beyond it")
	<-done
}
