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

// compareContracts adds the protocol contracts of two runs to their
// comparison, one row each: a contract that holds (or is only a warning)
// in the baseline and fails the run in the candidate is a regression, the
// other way round a fix. Contracts are not timed, so the rows have no
// deltas.
func compareContracts(c *comparisonData, base, cand *runData) {
	byName := func(rd *runData) map[string]contractData {
		m := make(map[string]contractData, len(rd.Contracts))
		for _, k := range rd.Contracts {
			m[k.Name] = k
		}
		return m
	}
	b, k := byName(base), byName(cand)
	var names []string
	for _, x := range base.Contracts {
		names = append(names, x.Name)
	}
	for _, x := range cand.Contracts {
		if _, ok := b[x.Name]; !ok {
			names = append(names, x.Name)
		}
	}
	for _, name := range names {
		bc, inBase := b[name]
		kc, inCand := k[name]
		cd := caseDelta{CaseID: name}
		switch {
		case !inCand:
			cd.Status = "only baseline"
		case !inBase:
			cd.Status = "only candidate"
		case !bc.Failing && kc.Failing:
			cd.Status = "pass→fail"
			c.Regressions++
		case bc.Failing && !kc.Failing:
			cd.Status = "fail→pass"
			c.Fixes++
		case kc.Failing:
			cd.Status = "fail"
		default:
			cd.Status = "pass"
		}
		c.Cases = append(c.Cases, cd)
	}
}
