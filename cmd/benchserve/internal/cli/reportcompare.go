package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

// reportComparisons compares, as benchserve compare does, every later
// workload run of runs with the first run of the same workload (by name):
// the comparisons report.Options shows. Every difference between the two
// is accepted (a report often shows two models or server versions) and
// named in the comparison; a pair that cannot be compared (a payload
// without workload.digest, a base run whose every request failed) is skipped
// with a line on stderr naming both runs and why. history[i] says runs[i]
// came from a SQLite history. Labels are made unique first ("run",
// "run (2)"), since the page finds a comparison's runs by label.
func reportComparisons(stderr io.Writer, runs []report.Run, history []bool) []*results.Comparison {
	seen := map[string]int{}
	for i := range runs {
		l := runs[i].Label
		if seen[l]++; seen[l] > 1 {
			runs[i].Label = l + " (" + strconv.Itoa(seen[l]) + ")"
		}
	}
	var out []*results.Comparison
	first := map[string]int{}
	for i, r := range runs {
		if r.Payload == nil {
			continue
		}
		name := r.Payload.Workload.Name
		if name == "" && len(r.Payload.Results) > 0 {
			name = r.Payload.Results[0].Workload
		}
		b, ok := first[name]
		if !ok {
			first[name] = i
			continue
		}
		base := compare.Run{Label: runs[b].Label, Payload: runs[b].Payload, History: history[b]}
		cand := compare.Run{Label: r.Label, Payload: r.Payload, History: history[i]}
		cmp, err := compare.Workloads([]compare.Run{base}, []compare.Run{cand}, compare.Options{Allow: compare.AllowNames})
		if err != nil {
			fmt.Fprintf(stderr, "benchserve report: %s not compared with %s: %s\n", cand.Label, base.Label, explain(err))
			continue
		}
		out = append(out, cmp)
	}
	return out
}
