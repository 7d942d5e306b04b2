package resultio

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrInputTooLarge is wrapped by ReadFileLimit when a file holds more
// than the limit, and ErrNotAFile when the path is a directory or a
// device: reading /dev/zero (or a mistyped /dev path) as an input fails at
// once instead of filling memory.
var (
	ErrInputTooLarge = errors.New("input too large")
	ErrNotAFile      = errors.New("not a file")
)

// MaxPayloadBytes caps a results payload read back as an input (merge's
// shards, the conformance matrix's results): 256 MiB, far above a payload
// of 100,000 requests, so a wrong path (/dev/zero, a model file) fails at
// once with an error naming it.
const MaxPayloadBytes = 256 << 20

// ReadFileLimit reads the file at path whole,
// refusing more than limit bytes: a regular file larger than limit fails
// before anything is read; a pipe or FIFO (e.g. bash's <(…)) is read up
// to limit+1 bytes and fails when there is more; a directory or a
// character or block device fails at once (ErrNotAFile). Errors name the
// path and wrap the os error (errors.Is(err, fs.ErrNotExist) works),
// ErrInputTooLarge or ErrNotAFile.
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *fs.PathError already names the path
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	mode := fi.Mode()
	switch {
	case mode.IsDir():
		return nil, fmt.Errorf("%s: %w: is a directory", path, ErrNotAFile)
	case mode&os.ModeDevice != 0:
		return nil, fmt.Errorf("%s: %w: is a device", path, ErrNotAFile)
	case mode.IsRegular() && fi.Size() > limit:
		return nil, fmt.Errorf("%s: %w: %d bytes, the limit is %d bytes", path, ErrInputTooLarge, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: more than the limit of %d bytes", path, ErrInputTooLarge, limit)
	}
	return data, nil
}
