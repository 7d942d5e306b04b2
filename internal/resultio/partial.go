package resultio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchserve/benchserve/results"
)

// KeepPartial keeps measured results whose output could not be written:
// it writes data (their JSON) to a new file "<output>.partial.json", or
// "<output>.partial.N.json" (N = 2, 3, …) when an earlier failed run's
// file has that name (it is never overwritten), or, when that fails or
// output is "", to a new "benchserve-<name>-*.partial.json" in
// os.TempDir(), and returns the path written. The error joins every
// attempt's when none succeeded.
func KeepPartial(output string, data []byte) (string, error) {
	var errs []error
	if output != "" {
		path, err := writeNew(output, ".partial", ".json", data)
		if err == nil {
			return path, nil
		}
		errs = append(errs, err)
	}
	name := strings.Map(func(r rune) rune {
		if r == '*' || r == os.PathSeparator || r == '/' {
			return '_'
		}
		return r
	}, filepath.Base(output))
	if output == "" {
		name = "results"
	}
	fh, err := os.CreateTemp("", "benchserve-"+name+"-*.partial.json")
	if err != nil {
		return "", errors.Join(append(errs, err)...)
	}
	_, err = fh.Write(data)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(fh.Name())
		return "", errors.Join(append(errs, err)...)
	}
	return fh.Name(), nil
}

// WriteFileOrKeep is WriteFile, and when that fails it keeps p as JSON by
// KeepPartial: kept is the path written then ("" when p was written, or
// lost too), and keepErr why keeping failed. err is WriteFile's error.
func WriteFileOrKeep(p *results.Payload, path string) (kept string, err, keepErr error) {
	if err = WriteFile(p, path); err == nil {
		return "", nil, nil
	}
	data, jerr := FormatJSON(p)
	if jerr != nil {
		return "", err, jerr
	}
	kept, keepErr = KeepPartial(path, data)
	return kept, err, keepErr
}

// writeNew writes data to a file that did not exist:
// base+mid+ext, else base+mid+".N"+ext for the first free N from 2.
func writeNew(base, mid, ext string, data []byte) (string, error) {
	for n := 1; n < 1000; n++ {
		path := base + mid + ext
		if n > 1 {
			path = fmt.Sprintf("%s%s.%d%s", base, mid, n, ext)
		}
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = fh.Write(data)
		if serr := fh.Sync(); err == nil {
			err = serr
		}
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path)
			return "", fmt.Errorf("write %s: %w", path, err)
		}
		return path, nil
	}
	return "", fmt.Errorf("no free name for %s%s%s", base, mid, ext)
}
