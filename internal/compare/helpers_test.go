package compare_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/results"
)

// synth builds a workload payload of the given cases, reps requests
// each, whose TTFT is ttft ms plus normal noise of sd ms (seeded).
func synth(label string, cases []string, reps int, ttft, sd float64, seed uint64) compare.Run {
	r := rand.New(rand.NewPCG(seed, 7))
	var recs []results.Record
	for _, id := range cases {
		for rep := range reps {
			t := ttft + sd*r.NormFloat64()
			recs = append(recs, results.Record{
				RunID: "r" + label, Workload: "w", CaseID: id, Repetition: rep, ModelID: "m",
				Metrics: results.Metrics{TTFTms: t, TPOTms: 5 + 0.2*r.NormFloat64(), E2ELms: t + 100 + sd*r.NormFloat64(),
					GenTPS: 200 + 5*r.NormFloat64(), ITLms: []float64{5 + 0.2*r.NormFloat64(), 5 + 0.2*r.NormFloat64()}},
				Quality: results.Quality{OK: true, Issues: []string{}, ContentPreview: "hello"},
				OK:      true,
			})
		}
	}
	p := &results.Payload{RunID: "r" + label, Workload: results.WorkloadInfo{Name: "w", Digest: "sha256:abc", Repetitions: reps},
		CachePolicy: results.CachePolicy{Mode: "none"}, Results: recs}
	return compare.Run{Label: label, Payload: p}
}

func find(cmp *results.Comparison, caseID, metric string) (results.Change, bool) {
	for _, ch := range cmp.Changes {
		if ch.Case == caseID && ch.Metric == metric {
			return ch, true
		}
	}
	return results.Change{}, false
}

func caseNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%02d", i)
	}
	return out
}
