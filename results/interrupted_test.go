package results

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMarkInterrupted(t *testing.T) {
	r := fixedRecords()[0]
	r.Error = "context canceled"
	r.Quality.Issues = []string{"content shorter than min_chars=40", "request error: context canceled"}
	MarkInterrupted(&r)
	MarkInterrupted(&r)
	assert.True(t, r.Interrupted, "marked")
	assert.False(t, r.OK, "not ok")
	assert.Equal(t, []string{IssueInterrupted}, r.Quality.Issues, "the one issue says interrupted; checks of a cut answer are dropped")
	assert.Equal(t, "interrupted: context canceled", r.Error, "the error says interrupted, once")
	assert.Nil(t, r.Policy.WithinTimeout, "no policy outcome")
	assert.Equal(t, "interrupted", string(KindInterrupted), "the error kind")

}

func TestSummarizeLeavesInterruptedRecordsOut(t *testing.T) {
	recs := fixedRecords()
	base := Summarize(recs)
	cut := recs[0]
	cut.Metrics.E2ELms, cut.Metrics.TTFTms = 1, 1 // a cut request looks fast
	cut.Error = "context canceled"
	MarkInterrupted(&cut)
	got := Summarize(append(append([]Record{}, recs...), cut))

	assert.Equal(t, 1, got.InterruptedCount, "counted separately")
	assert.Equal(t, base.CaseCount, got.CaseCount, "not a measured record")
	assert.Equal(t, base.FailureCount, got.FailureCount, "not a failure")
	assert.Equal(t, base.FailureRate, got.FailureRate, "failure rate over measured records")
	assert.Equal(t, base.LatencyMS, got.LatencyMS, "latency statistics unchanged")
	assert.Equal(t, base.TTFTms, got.TTFTms, "TTFT statistics unchanged")
	assert.Equal(t, base.PolicyTimeoutFailureCount, got.PolicyTimeoutFailureCount, "policy outcome unchanged")
	assert.False(t, got.Passed, "an interrupted run did not pass")
	cs := got.CaseSummaries[cut.CaseID]
	assert.Equal(t, 1, cs.InterruptedCount, "per case too")
	assert.Equal(t, base.CaseSummaries[cut.CaseID].SampleCount, cs.SampleCount, "case samples unchanged")
	assert.False(t, cs.Passed, "the case did not finish")

	data, err := json.Marshal(&Payload{Summary: got})
	require.NoError(t, err, "json")
	assert.Contains(t, string(data), `"interrupted_count":1`, "summary.interrupted_count")
	plain, err := json.Marshal(&Payload{Summary: base})
	require.NoError(t, err, "json")
	assert.False(t, strings.Contains(string(plain), "interrupted"), "absent when nothing was interrupted (reference shape)")
}
