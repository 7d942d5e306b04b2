package summary_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// TestEndedShortWarningGivesTheNumbers: under ignore_eos, answers short
// of the asked length are warned about with their counts and lengths;
// failed and interrupted requests are not answers; a run that asked for
// neither ignore_eos nor min_tokens, or whose answers reached the length,
// gets no warning.
func TestEndedShortWarningGivesTheNumbers(t *testing.T) {
	stop, length := "stop", "length"
	rec := func(got int, finish *string) results.Record {
		return results.Record{Requested: &results.Requested{InputTokens: 32, OutputTokens: 600},
			Metrics: results.Metrics{CompletionTokens: got}, Quality: results.Quality{FinishReason: finish}}
	}
	failed := rec(0, nil)
	failed.Error = "HTTP 500"
	cut := rec(3, nil)
	cut.Interrupted = true
	p := &results.Payload{Workload: results.WorkloadInfo{Generator: &results.Generator{Name: "random", IgnoreEOS: true}},
		Results: []results.Record{rec(97, &stop), rec(98, &stop), rec(99, nil), rec(600, &length), failed, cut}}
	assert.Equal(t, "3 of 4 answers ended short of the asked output length under ignore_eos: asked 600 tokens (p50), got p50 98 (min 97, max 99); finish_reason stop 2, unknown 1: the server did not honour it, so the output lengths, TPOT and throughputs are not those of the asked length",
		summary.EndedShortWarning(p))

	p.Workload.Generator.IgnoreEOS = false
	assert.Empty(t, summary.EndedShortWarning(p), "nothing asked the server to reach the length")
	p.Workload.Generator.MinTokens = true
	assert.Contains(t, summary.EndedShortWarning(p), "under min_tokens:")
	p.Results = p.Results[3:]
	assert.Empty(t, summary.EndedShortWarning(p), "every answer reached its length")
}
