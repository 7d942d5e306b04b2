package summary

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchserve/benchserve/results"
)

// EndedShortWarning is the warning, without a trailing newline, that the
// answers of p ended short of their asked output length although the
// requests asked the server to reach it (the generator's ignore_eos or
// min_tokens), with the numbers:
//
//	5 of 5 answers ended short of the asked output length under ignore_eos: asked 600 tokens (p50), got p50 98 (min 97, max 99); finish_reason stop 5: the server did not honour it, so the output lengths, TPOT and throughputs are not those of the asked length
//
// "" when the run asked for neither, or every answer reached its length.
// A request that failed on the wire, or that the run's stop cut, is not
// an answer: it is counted where it failed, not here. It is a warning,
// not a failure (vLLM bench serve only reports the lengths): a check
// that asks for the length (a case's checks "finish_reason": "length")
// fails the request itself.
func EndedShortWarning(p *results.Payload) string {
	g := p.Workload.Generator
	if g == nil || (!g.IgnoreEOS && !g.MinTokens) {
		return ""
	}
	var asked, got []float64
	answers := 0
	why := map[string]int{}
	for _, r := range p.Results {
		q := r.Requested
		if q == nil || q.OutputTokens <= 0 || r.Interrupted || r.Error != "" {
			continue
		}
		answers++
		if r.Metrics.CompletionTokens >= q.OutputTokens {
			continue
		}
		asked, got = append(asked, float64(q.OutputTokens)), append(got, float64(r.Metrics.CompletionTokens))
		reason := "unknown"
		if f := r.Quality.FinishReason; f != nil && *f != "" {
			reason = *f
		}
		why[reason]++
	}
	if len(got) == 0 {
		return ""
	}
	var under []string
	if g.IgnoreEOS {
		under = append(under, "ignore_eos")
	}
	if g.MinTokens {
		under = append(under, "min_tokens")
	}
	var by []string
	for _, k := range slices.Sorted(maps.Keys(why)) {
		by = append(by, fmt.Sprintf("%s %d", k, why[k]))
	}
	a, o := results.NewDist(asked), results.NewDist(got)
	return fmt.Sprintf("%d of %d answers ended short of the asked output length under %s: asked %.0f tokens (p50), got p50 %.0f (min %.0f, max %.0f); finish_reason %s: the server did not honour it, so the output lengths, TPOT and throughputs are not those of the asked length",
		len(got), answers, strings.Join(under, " and "), a.P50, o.P50, o.Min, o.Max, strings.Join(by, ", "))
}
