package workloads

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/benchserve/benchserve/internal/paths"
)

// MaxFileSize is the largest workload or request file Load reads, in
// bytes (16 MiB). Workloads are small JSON documents; the limit turns a
// wrong path (a log file, /dev/zero) into a clear error instead of a read
// that never ends.
const MaxFileSize = 16 << 20

// readLimited reads the file at path, refusing more than MaxFileSize bytes.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() && fi.Mode()&os.ModeNamedPipe == 0 {
		// A device (/dev/zero) or a directory: refused before reading.
		kind := "a device"
		switch {
		case fi.IsDir():
			kind = "a directory"
		case fi.Mode()&os.ModeSocket != 0:
			kind = "a socket"
		}
		return nil, fmt.Errorf("%s: not a regular file (%s); a workload is a JSON file", path, kind)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: file is larger than 16 MiB; workload and request files are small JSON documents", path)
	}
	return data, nil
}

// invalidUTF8 returns the byte offset of the first invalid UTF-8 sequence
// in data, or -1 when data is valid UTF-8.
func invalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size == 1 {
			return off
		}
		off += size
	}
	return -1
}

// pyPathString returns str(Path(p)) for a POSIX path: repeated separators
// and "." components dropped, a trailing separator removed, ".." kept.
func pyPathString(p string) string {
	if p == "" {
		return "."
	}
	lead := ""
	switch {
	case strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///"):
		lead = "//"
	case strings.HasPrefix(p, "/"):
		lead = "/"
	}
	var parts []string
	for _, part := range strings.Split(p, "/") {
		if part != "" && part != "." {
			parts = append(parts, part)
		}
	}
	s := lead + strings.Join(parts, "/")
	if s == "" {
		return "."
	}
	return s
}

// PayloadPath returns the workload path as the reference writes it in the
// results payload: str(Path(path).expanduser()), that is with a leading ~
// expanded and the path normalized as pathlib does, but not made absolute.
func PayloadPath(path string) string { return pyPathString(paths.ExpandHome(path)) }
