package resultio

import (
	"os"
	"path/filepath"
)

// SameFile reports whether paths a and b name the same file, so that a
// caller can refuse to write an output over one of its inputs before
// anything runs. When both exist it
// is os.SameFile (same device and inode: hard links, symlinks and
// different spellings all match); otherwise the paths are compared after
// making them absolute, cleaning them and resolving symlinks in the
// longest existing prefix (so "out/../w.json" and a not-yet-existing
// file behind a symlinked directory compare correctly). An empty path is
// never the same as anything (stdout is not a file).
func SameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	return canonicalPath(a) == canonicalPath(b)
}

// canonicalPath returns path absolute and clean, with symlinks resolved
// in its longest existing prefix and the missing rest appended.
func canonicalPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if target, err := ResolveOutput(abs); err == nil {
		abs = target
	}
	dir, rest := abs, ""
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
