package py

import "strings"

// PathString returns str(pathlib.Path(p)) for a POSIX path: repeated separators
// and "." components dropped, a trailing separator removed, ".." kept.
func PathString(p string) string {
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
