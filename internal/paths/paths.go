// Package paths holds the path rules every benchserve input and output
// follows.
package paths

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// ExpandHome expands a leading "~" or "~user" like Python's
// os.path.expanduser, which the reference applies to every path it is
// given (workloads, request files, prompt sets, outputs); a path it cannot
// expand is returned unchanged. The one place benchserve does this.
func ExpandHome(p string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	name, rest, _ := strings.Cut(p[1:], string(filepath.Separator))
	var home string
	if name == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return p
		}
		home = h
	} else {
		u, err := user.Lookup(name)
		if err != nil {
			return p
		}
		home = u.HomeDir
	}
	return filepath.Join(home, rest)
}
