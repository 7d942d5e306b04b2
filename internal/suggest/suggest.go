// Package suggest picks the "did you mean" for a name the user mistyped:
// an unknown workload key, check, message role, contract, flag, command
// or fault. It is a leaf the public packages (workloads, checks) and the
// CLI share, so every door suggests alike.
package suggest

import (
	"strings"

	"github.com/agnivade/levenshtein"
)

// Closest returns the candidate closest to name by edit distance (in
// code points) when it is close enough to be a likely typo — a distance
// of at most 1 + len(name)/4, or a case-insensitive match — and "" when
// none is. Ties go to the earlier candidate.
func Closest(name string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			return c
		}
		if d := levenshtein.ComputeDistance(name, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= 1+len(name)/4 {
		return best
	}
	return ""
}
