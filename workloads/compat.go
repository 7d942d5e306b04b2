package workloads

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"strconv"
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

// pyStr returns Python's str() of a decoded JSON scalar (string, json.Number,
// bool, nil): 5 → "5", 1.5 → "1.5", 1e3 → "1000.0", true → "True", null →
// "None". ok is false for lists and objects, whose Python str() is a repr
// benchserve does not reproduce.
func pyStr(v any) (s string, ok bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case nil:
		return "None", true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case json.Number:
		return pyNumberStr(string(x)), true
	}
	return "", false
}

// pyNumberStr is str() of the number json.loads makes of the JSON number
// literal lit: an int for integer literals (arbitrary precision), else a
// float in Python's repr.
func pyNumberStr(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		if n, ok := new(big.Int).SetString(lit, 10); ok {
			return n.String()
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return lit
	}
	return pyFloatRepr(f)
}

// pyFloatRepr is Python's repr(float): the shortest round-tripping digits,
// scientific notation below 1e-4 and from 1e16, ".0" on integral values.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(sci[strings.IndexByte(sci, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return sci
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

// pyFalsy reports whether a decoded JSON value is false in Python's truth
// test: null, false, 0, 0.0, "", [] and {}.
func pyFalsy(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
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
