package summary

import (
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// SampleOf is the one view of a record as a statistics sample, for a
// request just measured (runner.SampleOf) and for a payload read back
// (Payload) alike: the record's timings (ms), completion tokens and
// connection retries, and its verdict as the sample's error kind: the
// record's ErrorKind when its Outcome fails (results.Outcome.Failed),
// none for pass and capped. A record written before outcomes were
// recorded is judged by its fields (legacyKind). The schedule fields
// (Index, Scheduled, Sent, Lag) are the load generator's to fill.
func SampleOf(rec results.Record) loadgen.Sample {
	m := rec.Metrics
	s := loadgen.Sample{
		TTFTms: m.TTFTms, TPOTms: m.TPOTms, E2ELms: m.E2ELms, ITLms: m.ITLms,
		GenTPS: m.GenTPS, CompletionTokens: m.CompletionTokens, ConnectionRetries: m.ConnectionRetries,
	}
	if m.TTFOms != nil {
		s.TTFOms, s.HasOutput = *m.TTFOms, true
	}
	switch {
	case rec.Outcome == "":
		s.Kind = legacyKind(rec)
	case rec.Outcome.Failed():
		s.Kind = rec.ErrorKind
		if s.Kind == "" {
			s.Kind = results.KindQuality
		}
	}
	return s
}

// legacyKind is the error kind of a record without an Outcome (a payload
// written before outcomes were recorded): with Error set it failed, of
// kind policy_timeout when its policy timeout was exceeded, else of kind
// KindRequest (such a payload keeps the error text, not its type); one
// whose quality checks failed without an error is of kind quality.
func legacyKind(rec results.Record) results.ErrorKind {
	switch {
	case rec.Error != "" && rec.Policy.WithinTimeout != nil && !*rec.Policy.WithinTimeout:
		return results.KindPolicyTimeout
	case rec.Error != "":
		return KindRequest
	case !rec.Quality.OK:
		return results.KindQuality
	}
	return ""
}
