package report

import (
	"math"
)

// The report's "Comparison with the baseline" rows: each workload run
// paired with the first earlier run of its workload.

// compare pairs every workload run with the first run of the same
// workload given before it.
func compare(runs []*runData) []comparisonData {
	out := []comparisonData{}
	first := map[string]*runData{}
	for _, rd := range runs {
		if rd.Kind != "workload" {
			continue
		}
		base, ok := first[rd.Workload]
		if !ok {
			first[rd.Workload] = rd
			continue
		}
		out = append(out, compareRuns(base, rd))
	}
	return out
}

func compareRuns(base, cand *runData) comparisonData {
	c := comparisonData{Workload: base.Workload, Baseline: base.Label, Candidate: cand.Label,
		BaselineID: base.ID, CandidateID: cand.ID, Cases: []caseDelta{}}
	ids := make([]string, 0, len(base.Cases)+len(cand.Cases))
	for _, cs := range base.Cases {
		ids = append(ids, cs.CaseID)
	}
	for _, cs := range cand.Cases {
		if _, ok := base.caseIndex[cs.CaseID]; !ok {
			ids = append(ids, cs.CaseID)
		}
	}
	for _, id := range ids {
		bi, inBase := base.caseIndex[id]
		ci, inCand := cand.caseIndex[id]
		cd := caseDelta{CaseID: id}
		switch {
		case !inCand:
			cd.Status = "only baseline"
		case !inBase:
			cd.Status = "only candidate"
		default:
			b, k := base.Cases[bi], cand.Cases[ci]
			switch {
			case b.Passed && !k.Passed:
				cd.Status = "pass→fail"
				c.Regressions++
			case !b.Passed && k.Passed:
				cd.Status = "fail→pass"
				c.Fixes++
			case k.Passed:
				cd.Status = "pass"
			default:
				cd.Status = "fail"
			}
			cd.TTFT = newDelta(b.P50.TTFTms, k.P50.TTFTms, false)
			cd.E2EL = newDelta(b.P50.E2ELms, k.P50.E2ELms, false)
			cd.GenTPS = newDelta(b.P50.GenTPS, k.P50.GenTPS, true)
			worse, better := false, false
			for _, d := range []*delta{cd.TTFT, cd.E2EL, cd.GenTPS} {
				if d != nil {
					worse = worse || d.Verdict == "worse"
					better = better || d.Verdict == "better"
				}
			}
			if worse {
				c.Worse++
			} else if better {
				c.Better++
			}
		}
		c.Cases = append(c.Cases, cd)
	}
	compareContracts(&c, base, cand)
	return c
}

func newDelta(base, cand *float64, higherBetter bool) *delta {
	if base == nil || cand == nil {
		return nil
	}
	d := &delta{Baseline: *base, Candidate: *cand, Change: round(*cand-*base, 3), Verdict: "same"}
	rel := 0.0
	if *base != 0 {
		rel = (*cand - *base) / math.Abs(*base)
	} else if *cand != 0 {
		rel = math.Copysign(1, *cand)
	}
	d.Pct = round(rel*100, 1)
	if math.Abs(rel) >= noiseThreshold {
		if (rel > 0) == higherBetter {
			d.Verdict = "better"
		} else {
			d.Verdict = "worse"
		}
	}
	return d
}
