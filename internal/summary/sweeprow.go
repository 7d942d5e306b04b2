package summary

import (
	"slices"

	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// MaxReasons bounds SweepRow.Reasons.
const MaxReasons = 3

// SweepRow is the sweep row's view of one round's records (reference:
// step i of run_bench_serve): means over the requests that did not error
// (Valid of them), in ms for TTFT, TPOT and E2E, tokens/s for GenTPS and
// PromptTPS; Throughput (completion tokens/s) and RPS over the slowest
// request (OverWall restates them over an open loop's wall time); the
// reference's Validated flag; and the counts of the engine's outcomes
// (Failed: errors and unsent, Invalid: failed answers, Capped), with the
// first MaxReasons distinct reasons.
type SweepRow struct {
	Valid                              int
	TTFT, TPOT, E2E, GenTPS, PromptTPS float64
	Throughput, RPS                    float64
	Validated                          bool
	Failed, Invalid, Capped            int
	// Tokens is the completion tokens of the valid requests.
	Tokens  float64
	Reasons []string
}

// SweepRowOf combines the records of one round that did not error
// (reference: step i of run_bench_serve) and counts what went wrong; a
// nil record is a request never sent. The counts follow the engine's
// one verdict (results.Record.Outcome): an error is failed; with
// validate, a failed answer is invalid and a capped one capped; the
// row's validated flag is the reference's (every answer's quality.ok),
// so a capped answer leaves the row not validated.
func SweepRowOf(recs []*results.Record, concurrency int, validate bool) SweepRow {
	var a SweepRow
	a.Validated = true
	var maxE2E float64
	total, timed := 0, 0
	reason := func(s string) {
		if len(a.Reasons) < MaxReasons && !slices.Contains(a.Reasons, s) {
			a.Reasons = append(a.Reasons, s)
		}
	}
	for _, rec := range recs {
		if rec == nil {
			a.Failed++
			reason("not sent: the run was stopped")
			continue
		}
		if rec.Outcome == results.OutcomeError {
			a.Failed++
			reason(rec.Error)
			continue
		}
		ok := rec.Quality.OK || !validate
		switch {
		case !validate:
		case rec.Outcome == results.OutcomeCapped:
			a.Capped++
		case rec.Outcome == results.OutcomeFail:
			a.Invalid++
			if len(rec.Quality.Issues) > 0 {
				reason(rec.Quality.Issues[0])
			}
		}
		m := rec.Metrics
		a.Valid++
		a.TTFT += m.TTFTms
		if stats.DecodeTimed(m.TPOTms, m.GenTPS) {
			// Only requests whose decode span was observable
			// (stream.DecodeObservable): a burst has no rate.
			timed++
			a.TPOT += m.TPOTms
			a.GenTPS += m.GenTPS
		}
		a.E2E += m.E2ELms
		a.PromptTPS += m.PromptTPS
		total += m.CompletionTokens
		maxE2E = max(maxE2E, m.E2ELms)
		a.Validated = a.Validated && ok
	}
	if a.Valid == 0 {
		return SweepRow{Failed: a.Failed, Reasons: a.Reasons}
	}
	a.Tokens = float64(total)
	n := float64(a.Valid)
	a.TTFT, a.E2E, a.PromptTPS = a.TTFT/n, a.E2E/n, a.PromptTPS/n
	// NaN (null in the row) when no request had an observable decode.
	a.TPOT, a.GenTPS = a.TPOT/float64(timed), a.GenTPS/float64(timed)
	if secs := maxE2E / 1000; secs > 0 {
		a.Throughput = float64(total) / secs
		a.RPS = float64(concurrency) / secs
	}
	return a
}

// OverWall restates the throughputs of an open-loop point over its wall
// time (a closed round's are over its slowest request, as the reference).
func (a *SweepRow) OverWall(secs float64) {
	if secs <= 0 || a.Valid == 0 {
		return
	}
	a.Throughput = a.Tokens / secs
	a.RPS = float64(a.Valid) / secs
}
