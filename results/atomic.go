package results

import (
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
func WriteFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
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
