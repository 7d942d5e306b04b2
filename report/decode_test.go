package report_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

// TestUnmeasuredRatesAreNullInTheReport: a record whose decode span was
// not observable (NaN tpot_ms and gen_tps) shows null, not 0, and is left
// out of the case's median gen_tps.
func TestUnmeasuredRatesAreNullInTheReport(t *testing.T) {
	p := &results.Payload{RunID: "r1", Timestamp: "2026-01-01T00:00:00.000000+00:00", Results: []results.Record{
		{CaseID: "a", Quality: results.Quality{OK: true}, Metrics: results.Metrics{TTFTms: 10, E2ELms: 20, TPOTms: 2, GenTPS: 100}},
		{CaseID: "a", Repetition: 1, Quality: results.Quality{OK: true}, Metrics: results.Metrics{TTFTms: 30, E2ELms: 31, TPOTms: math.NaN(), GenTPS: math.NaN(), DecodeTiming: "burst"}},
	}}
	p.Summary = results.Summarize(p.Results)
	var buf bytes.Buffer
	require.NoError(t, report.Write(&buf, report.FromPayload(p, "")), "a record with null rates renders")
	m := dataBlock.FindStringSubmatch(buf.String())
	require.NotNil(t, m, "data block")
	data := string(m[1])
	assert.Contains(t, data, `"tpot_ms": null`, "tpot null, not 0")
	assert.Contains(t, data, `"gen_tps": null`, "gen_tps null, not 0")
	assert.Contains(t, data, `"gen_tps": 100`, "the case median is the measured record's")
	assert.Contains(t, buf.String(), "1 of 2 requests: decode not timed (one chunk or a burst)", "the case says how many were not timed")
}

// TestReportShowsReasoningBesideContent: a case whose answers reasoned
// says how much beside how much content.
func TestReportShowsReasoningBesideContent(t *testing.T) {
	p := &results.Payload{RunID: "r1", Timestamp: "2026-01-01T00:00:00.000000+00:00", Results: []results.Record{
		{CaseID: "think", Quality: results.Quality{Issues: []string{"the answer was reasoning only: 332 chars of reasoning, no content"}, ReasoningChars: 332, ReasoningChunks: 60},
			Metrics: results.Metrics{TTFTms: 3, E2ELms: 74, TPOTms: 1.2, GenTPS: 846}},
	}}
	p.Summary = results.Summarize(p.Results)
	var buf bytes.Buffer
	require.NoError(t, report.Write(&buf, report.FromPayload(p, "")), "renders")
	assert.Contains(t, buf.String(), "reasoning p50 332 chars beside p50 0 chars of content", "reasoning beside content")
}
