// Package legend says what the change column of a comparison holds, row
// kind by row kind, in the words every format prints (compare's table
// and Markdown, the report's HTML, which cannot import internal/compare).
// A median's change is the Hodges–Lehmann shift, not the difference of
// the two medians printed beside it, and can read against them: the
// legend says so wherever the column is shown.
package legend

import (
	"strings"

	"github.com/benchserve/benchserve/results"
)

// The tests of a results.Change, as compare names them (Change.Test).
const (
	Median      = "mann-whitney u, hodges-lehmann"
	Paired      = "wilcoxon signed-rank over cases, paired hodges-lehmann"
	Percentile  = "percentile intervals (effective sample size)"
	Proportions = "newcombe interval for two proportions"
	Groups      = "mann-whitney u, hodges-lehmann over the searches' capacities"
	Brackets    = "capacity intervals" // and a suffix: the confidence, "significant when they do not overlap"
)

// Header is the change column's header.
const Header = "shift [interval]"

// entry is one kind of row's meaning of the column.
type entry struct {
	match func(test string) bool
	text  string
}

var entries = []entry{
	{func(t string) bool { return t == Median || t == Groups },
		"p50, gen_tps, rates: the Hodges-Lehmann shift (the median of all candidate - base differences, not the medians' difference) and its interval"},
	{func(t string) bool { return t == Paired },
		"run-wide p50, gen_tps paired by case: the paired Hodges-Lehmann shift of the cases' median differences and its interval"},
	{func(t string) bool { return t == Percentile },
		"p95, p99, itl: candidate - base percentile and the interval of the two order statistics"},
	{func(t string) bool { return t == Proportions },
		"error_rate: candidate - base failed share and Newcombe's interval"},
	{func(t string) bool { return strings.HasPrefix(t, Brackets) },
		"capacity: candidate - base capacity and [candidate low - base high, candidate high - base low]"},
}

// Title introduces the legend's lines.
const Title = Header + " is, by row:"

// Lines are the legend of changes' column: one line per kind of row
// present, in a fixed order; none when changes is empty.
func Lines(changes []results.Change) []string {
	var out []string
	for _, e := range entries {
		for _, ch := range changes {
			if e.match(ch.Test) {
				out = append(out, e.text)
				break
			}
		}
	}
	return out
}
