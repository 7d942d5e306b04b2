package resultio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// CheckOutput is the one output pre-check of both doors (the CLI's
// --output, benchtest's WithOutput and WithReport): it reports, before
// anything runs, why path could not be written in format ("" means the
// format its extension names, FormatForPath). One rule for directories:
// the output's directory must exist and take new files (the atomic write
// creates a temporary file there); a missing one is refused rather than
// created, so a typo in a path fails at once. The path must not be a
// directory; a device or FIFO is written through; a format that needs a
// writer not linked into the binary is refused with the import that adds
// it (CheckWritable); with sqlite an existing non-empty file must be a
// SQLite database that can be opened for writing. The path is used as
// given: a leading "~" is the door's to expand. Errors start with path.
func CheckOutput(path, format string) error {
	if format == "" {
		format = FormatForPath(path)
	}
	if format == FormatSQLite || format == FormatHTML {
		if err := CheckWritable(path); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	target := path
	// Written through a symlink to its target (WriteFileAtomic).
	if t, err := ResolveOutput(path); err == nil {
		target = t
	}
	if st, err := os.Stat(target); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		// A device or FIFO is written through, never replaced.
		if format == FormatSQLite {
			return fmt.Errorf("%s: not a regular file; a SQLite history must be one", path)
		}
		return nil
	}
	dir := filepath.Dir(target)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	if st, err := os.Stat(target); err == nil && st.IsDir() {
		return fmt.Errorf("%s: is a directory", path)
	}
	probe, err := os.CreateTemp(dir, ".benchserve-write-check-*")
	if err != nil {
		return fmt.Errorf("%s: directory %s is not writable: %w", path, dir, err)
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	if format == FormatSQLite {
		return checkSQLiteFile(path, target)
	}
	return nil
}

// checkSQLiteFile accepts a missing or empty file, or one starting with
// the SQLite header that can be opened for writing.
func checkSQLiteFile(output, path string) error {
	fh, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: cannot open it to append: %w", output, err)
	}
	defer fh.Close()
	hdr := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(fh, hdr)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil
	}
	if n < len(hdr) || string(hdr) != sqliteHeader {
		return fmt.Errorf("%s: the file exists and is not a SQLite database (--format sqlite appends to it); choose another path or format", output)
	}
	return nil
}
