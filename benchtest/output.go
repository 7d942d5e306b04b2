package benchtest

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/benchserve/benchserve/internal/resultio"
)

// claimed maps the output paths taken by the RunWorkload calls of this
// test binary to the test that took each.
var (
	claimedMu sync.Mutex
	claimed   = map[string]string{}
)

// outputPath is where this RunWorkload call (test name) writes the output
// configured as out, so that several calls sharing one output lose
// nothing:
//   - a directory (an existing one, or a path ending in "/"): one file per
//     call, <dir>/<test name>.json;
//   - a SQLite history (.db): every call appends to the same file;
//   - any other file: the first call of the binary writes it as given;
//     each later call writes beside it, <stem>.<test name><ext>.
//
// Test names have "/" replaced by "_".
func outputPath(out, test string) string {
	if out == "" {
		return ""
	}
	name := strings.NewReplacer("/", "_", string(os.PathSeparator), "_").Replace(test)
	expanded := out
	if strings.HasSuffix(out, "/") || isDir(expanded) {
		return filepath.Join(expanded, name+".json")
	}
	if resultio.FormatForPath(out) == resultio.FormatSQLite {
		return out
	}
	key, err := filepath.Abs(expanded)
	if err != nil {
		key = expanded
	}
	claimedMu.Lock()
	defer claimedMu.Unlock()
	if first, ok := claimed[key]; !ok || first == test {
		claimed[key] = test
		return out
	}
	ext := filepath.Ext(expanded)
	return strings.TrimSuffix(expanded, ext) + "." + name + ext
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
