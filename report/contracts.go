package report

import "github.com/benchserve/benchserve/results"

// contractData is one protocol contract in the report's contract table.
type contractData struct {
	results.Contract
	// Shown is the verdict as the table shows it: pass, fail (it fails
	// the run), warn (a SHOULD that failed), info (a MAY that failed) or
	// skip (the rule did not apply) or unsupported (the server refused
	// the feature with a 4xx).
	Shown string `json:"shown"`
}

func newContractData(c results.Contract) contractData {
	return contractData{Contract: c, Shown: c.Outcome()}
}

// withoutContracts is recs without the protocol contracts: their requests
// are checked, not timed, so they have no place on a latency timeline.
func withoutContracts(recs []results.Record) []results.Record {
	out := make([]results.Record, 0, len(recs))
	for _, r := range recs {
		if r.Contract == nil {
			out = append(out, r)
		}
	}
	return out
}
