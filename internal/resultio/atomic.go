package resultio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Test hooks for failure injection; production code never changes them.
var (
	afterTempWrite = func(*os.File) error { return nil }
	renameFile     = os.Rename
)

// WriteFileAtomic replaces path with data: it writes a temporary file in
// the same directory, fsyncs it, sets perm, renames it over path and
// fsyncs the directory (best effort). Readers see the old content or the
// new, never a truncated file, and when any step fails the old file is
// left intact and the temporary file removed. Errors are
// "results: write <path>: <step>: %w". Not safe for two writers of one
// path at once (the last rename wins).
//
// It never renames over something that is not a regular file:
//   - a symlink is followed (ResolveOutput) and the file it points to is
//     replaced atomically as above, so the link itself stays a link;
//   - a device, FIFO or socket (after following links) is written
//     through: opened for writing (no create, no truncate), data written,
//     closed; no temporary file, no chmod, no rename, so --output
//     /dev/null discards the results and /dev/null stays a device, and
//     --output to a FIFO feeds its reader (the open waits for one);
//   - a directory is an error (wrapping ErrNotRegular).
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	target, err := ResolveOutput(path)
	if err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	if fi, err := os.Stat(target); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("results: write %s: %w: is a directory", path, ErrNotRegular)
		}
		return writeThrough(path, target, data)
	}
	return writeAtomic(target, data, perm)
}

// ErrNotRegular is wrapped by WriteFileAtomic when the output path names
// a directory.
var ErrNotRegular = errors.New("not a regular file")

// maxLinkDepth bounds symlink chains followed by ResolveOutput, like the
// kernel's ELOOP limit.
const maxLinkDepth = 40

// ResolveOutput returns the path an output written to path really lands
// on: path itself unless it is a symlink, else the end of the link chain
// (relative links are taken relative to the link's directory). A dangling
// link resolves to its missing target, which a write then creates. A
// chain longer than 40 links is an error. Use it before deciding anything
// from the output's directory (where the temporary file of an atomic
// write goes).
func ResolveOutput(path string) (string, error) {
	for range maxLinkDepth {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("read symlink: %w", err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// writeThrough writes data into an existing non-regular file (a device
// or FIFO) without replacing it.
func writeThrough(path, target string, data []byte) error {
	fh, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("results: write %s: open: %w", path, err)
	}
	if _, err := fh.Write(data); err != nil {
		_ = fh.Close()
		return fmt.Errorf("results: write %s: write: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("results: write %s: close: %w", path, err)
	}
	return nil
}

// writeAtomic is the temporary-file-and-rename write of WriteFileAtomic
// to a path that is not a symlink.
func writeAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("results: write %s: create temp: %w", path, err)
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("results: write %s: write temp: %w", path, err)
	}
	if err = afterTempWrite(tmp); err != nil {
		return fmt.Errorf("results: write %s: write temp: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("results: write %s: sync: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("results: write %s: chmod: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("results: write %s: close: %w", path, err)
	}
	if err = renameFile(tmpName, path); err != nil {
		return fmt.Errorf("results: write %s: rename: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
