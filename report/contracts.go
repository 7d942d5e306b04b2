package report

import (
	"slices"

	"github.com/benchserve/benchserve/results"
)

// contractData is one protocol contract in the report's contract table.
type contractData struct {
	results.Contract
	// Shown is the verdict as the table shows it: pass, fail (it fails
	// the run), warn (a SHOULD that failed), info (a MAY that failed),
	// skip (the rule did not apply), not checked (the server went away
	// first) or unsupported (the server refused the feature with a 4xx).
	Shown string `json:"shown"`
}

func newContractData(c results.Contract) contractData {
	return contractData{Contract: c, Shown: c.Outcome()}
}

// verdictCount is how many contracts had one outcome, and the header
// tile's class for it (good, bad, warn or "").
type verdictCount struct {
	Verdict string `json:"verdict"`
	N       int    `json:"n"`
	Class   string `json:"-"`
}

// verdictOrder is the order of the header's verdict tiles; verdictClass
// their classes.
var (
	verdictOrder = []string{"pass", "fail", "not checked", "warn", "info", "skip", "unsupported"}
	verdictClass = map[string]string{"pass": "good", "fail": "bad", "not checked": "bad", "warn": "warn"}
)

// contractVerdicts counts cs by Shown outcome, in verdictOrder (an outcome
// outside it after them, in first-seen order), leaving out the outcomes
// none had.
func contractVerdicts(cs []contractData) []verdictCount {
	n := map[string]int{}
	order := slices.Clone(verdictOrder)
	for _, c := range cs {
		if n[c.Shown]++; !slices.Contains(order, c.Shown) {
			order = append(order, c.Shown)
		}
	}
	var out []verdictCount
	for _, v := range order {
		if n[v] > 0 {
			out = append(out, verdictCount{Verdict: v, N: n[v], Class: verdictClass[v]})
		}
	}
	return out
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
