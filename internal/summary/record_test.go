package summary_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// TestSampleOfReadsTheOneVerdict: a record's sample fails exactly when its
// outcome does, with the recorded kind; a capped answer succeeds; a
// record written before outcomes existed is judged by its fields.
func TestSampleOfReadsTheOneVerdict(t *testing.T) {
	ttfo := 12.5
	wentOver := false
	tests := []struct {
		name string
		rec  results.Record
		want results.ErrorKind
	}{
		{"pass", results.Record{Outcome: results.OutcomePass, OK: true}, ""},
		{"capped", results.Record{Outcome: results.OutcomeCapped, Quality: results.Quality{Issues: []string{"Truncated (finish_reason=length)"}}}, ""},
		{"fail", results.Record{Outcome: results.OutcomeFail, ErrorKind: results.KindQuality}, results.KindQuality},
		{"error keeps its kind", results.Record{Outcome: results.OutcomeError, ErrorKind: results.KindHTTP5xx, Error: "HTTP 500"}, results.KindHTTP5xx},
		{"legacy quality", results.Record{Quality: results.Quality{OK: false}}, results.KindQuality},
		{"legacy error", results.Record{Error: "boom", Quality: results.Quality{OK: false}}, summary.KindRequest},
		{"legacy policy timeout", results.Record{Error: "timed out", Policy: results.Policy{WithinTimeout: &wentOver}}, results.KindPolicyTimeout},
		{"legacy pass", results.Record{OK: true, Quality: results.Quality{OK: true}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rec.Metrics = results.Metrics{TTFTms: 40, E2ELms: 900, TPOTms: 20, GenTPS: 50, CompletionTokens: 43, TTFOms: &ttfo, ConnectionRetries: 1}
			s := summary.SampleOf(tt.rec)
			assert.Equal(t, tt.want, s.Kind)
			assert.Equal(t, 40.0, s.TTFTms)
			assert.Equal(t, 900.0, s.E2ELms)
			assert.Equal(t, 43, s.CompletionTokens)
			assert.True(t, s.HasOutput)
			assert.Equal(t, 12.5, s.TTFOms)
			assert.Equal(t, 1, s.ConnectionRetries)
		})
	}
}
