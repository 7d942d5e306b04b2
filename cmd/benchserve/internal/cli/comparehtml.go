package cli

import (
	"bytes"

	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

// comparisonPage is `compare --format html`: the report page of cmp with
// both sides' runs, labelled as cmp names them, so the page overlays them
// and shows each run's own report below.
func comparisonPage(cmp *results.Comparison, base, cand *sideRuns) ([]byte, error) {
	var runs []report.Run
	for _, s := range []*sideRuns{base, cand} {
		for _, r := range s.workloads {
			runs = append(runs, report.FromPayload(r.Payload, r.Label))
		}
		for _, r := range s.sweeps {
			runs = append(runs, report.FromSweep(r.Rows, r.Label))
		}
		for _, r := range s.capacities {
			runs = append(runs, report.FromCapacity(r.Capacity, r.Label))
		}
	}
	var buf bytes.Buffer
	err := report.WriteWith(&buf, report.Options{Title: "benchserve compare", Comparisons: []*results.Comparison{cmp}}, runs...)
	return buf.Bytes(), err
}
