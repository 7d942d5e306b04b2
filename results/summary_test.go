package results

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummarizeFixedRecords(t *testing.T) {
	s := Summarize(fixedRecords())
	assert.Equal(t, 3, s.CaseCount, "case_count counts records")
	assert.Equal(t, 2, s.UniqueCaseCount, "two distinct case ids")
	assert.Equal(t, 2, s.RepetitionCount, "greet ran under two repetitions")
	assert.False(t, s.Passed, "one record failed quality")
	assert.False(t, s.QualityPassed, "quality_passed mirrors passed")
	assert.Equal(t, 1, s.FailureCount, "one quality failure")
	assert.Equal(t, 1, s.QualityFailureCount, "quality_failure_count mirrors failure_count")
	assert.Equal(t, 0.3333, s.FailureRate, "failure_rate is rounded to 4 places")
	require.NotNil(t, s.PolicyTimeoutPassed, "two records had a policy timeout")
	assert.False(t, *s.PolicyTimeoutPassed, "greet/1 ran over its policy timeout")
	assert.Equal(t, 1, *s.PolicyTimeoutFailureCount, "one policy failure")

	require.NotNil(t, s.LatencyMS, "latency stats exist")
	// The failed greet/1 (0 ms) is excluded: samples are 950.25 and 400.
	assert.Equal(t, Stats{Mean: 675.125, Stddev: 389.08550634789776, Min: 400, Max: 950.25, P50: 675.125, P95: 922.7375, P99: 944.7475}, *s.LatencyMS,
		"latency stats leave out the errored record")
	assert.Equal(t, 80.0, s.TTFTms.Min, "ttft min is the fastest successful request, not the failed 0")
	assert.Equal(t, 42.0, s.GenTPS.Min, "gen_tps min ignores the failed 0")

	greet := s.CaseSummaries["greet"]
	assert.Equal(t, 2, greet.SampleCount, "greet has two samples")
	assert.Equal(t, []int{0, 1}, greet.Repetitions, "greet repetitions sorted")
	assert.False(t, greet.Passed, "greet failed once")
	assert.Equal(t, 0.5, greet.FailureRate, "greet failure rate")
	assert.Equal(t, false, *greet.PolicyTimeoutPassed, "greet policy failed")
	assert.Equal(t, 1, *greet.PolicyTimeoutFailureCount, "greet one policy failure")
	assert.Equal(t, Stats{Mean: 950.25, Min: 950.25, Max: 950.25, P50: 950.25, P95: 950.25, P99: 950.25}, *greet.LatencyMS,
		"greet latency from its one successful request")
	assert.Equal(t, Stats{Mean: 15.5, Stddev: 21.920310216782973, Min: 0, Max: 31, P50: 15.5, P95: 29.45, P99: 30.69}, *greet.ContentChars,
		"content_chars counts every record, the failed one too, as the reference does")

	tool := s.CaseSummaries["weather-tool"]
	assert.True(t, tool.Passed, "weather-tool passed")
	assert.Nil(t, tool.PolicyTimeoutPassed, "no policy timeout: policy_timeout_passed is None")
	assert.Nil(t, tool.PolicyTimeoutFailureCount, "no policy timeout: failure count is None")
	assert.Equal(t, 0.0, tool.FailureRate, "no failures")
}

func TestSummarizePolicyAllPass(t *testing.T) {
	recs := fixedRecords()[:1]
	s := Summarize(recs)
	require.NotNil(t, s.PolicyTimeoutPassed, "a timeout was configured")
	assert.True(t, *s.PolicyTimeoutPassed, "every trial within its timeout")
	assert.Equal(t, 0, *s.PolicyTimeoutFailureCount, "no policy failures")
	assert.True(t, s.Passed, "single passing record")
	assert.Equal(t, 1, s.RepetitionCount, "one repetition")
}

func TestSummarizeEmptyAndAllErrored(t *testing.T) {
	s := Summarize(nil)
	assert.Equal(t, 0, s.CaseCount, "no records")
	assert.Equal(t, 0, s.RepetitionCount, "repetition_count defaults to 0")
	assert.False(t, s.Passed, "nothing failed, but nothing was shown to work either: no pass")
	assert.False(t, s.QualityPassed, "nor a quality pass")
	assert.Equal(t, 0.0, s.FailureRate, "failure_rate of nothing is 0")
	assert.Nil(t, s.LatencyMS, "no samples: nil stats")
	assert.NotNil(t, s.CaseSummaries, "case_summaries is an empty map, not nil")

	b, err := json.Marshal(s)
	require.NoError(t, err, "marshal empty summary")
	assert.JSONEq(t, `{"case_count":0,"unique_case_count":0,"repetition_count":0,"passed":false,"failure_count":0,
		"failure_rate":0,"quality_passed":false,"quality_failure_count":0,"policy_timeout_passed":null,
		"policy_timeout_failure_count":null,"latency_ms":{},"ttft_ms":{},"gen_tps":{},"case_summaries":{}}`, string(b),
		"empty stats marshal as {} like _summary_or_empty")

	failed := fixedRecords()[2:]
	s = Summarize(failed)
	assert.Nil(t, s.LatencyMS, "only errored requests: no latency samples")
	cs := s.CaseSummaries["greet"]
	assert.Nil(t, cs.TTFTms, "only errored requests: no ttft samples in the case either")
	require.NotNil(t, cs.ContentChars, "content_chars still has the sample")
	assert.Equal(t, 1, s.FailureCount, "the errored record still counts as a failure")
}

func TestSummaryJSONRoundTripAndKeyOrder(t *testing.T) {
	s := Summarize(fixedRecords()[2:])
	b, err := json.Marshal(s)
	require.NoError(t, err, "marshal summary")
	assert.Contains(t, string(b), `"policy_timeout_failure_count":1,"latency_ms":{},"ttft_ms":{},"gen_tps":{},"case_summaries":{"greet":{"sample_count":1,`,
		"keys in reference order with {} for empty stats")

	var back RunSummary
	require.NoError(t, json.Unmarshal(b, &back), "unmarshal summary")
	assert.Equal(t, s, back, "marshal/unmarshal round trip keeps nil stats nil")

	full := Summarize(fixedRecords())
	b, err = json.Marshal(full)
	require.NoError(t, err, "marshal full summary")
	var back2 RunSummary
	require.NoError(t, json.Unmarshal(b, &back2), "unmarshal full summary")
	assert.Equal(t, full, back2, "round trip with stats")
}

func TestSummarizeSumsConnectionRetries(t *testing.T) {
	recs := fixedRecords()
	recs[0].Metrics.ConnectionRetries = 1
	recs[2].Metrics.ConnectionRetries = 1
	assert.Equal(t, 2, Summarize(recs).ConnectionRetries, "connection_retries sums the records'")
	recs[2].Interrupted = true
	assert.Equal(t, 1, Summarize(recs).ConnectionRetries, "an interrupted record is left out, as from every count")
	assert.Zero(t, Summarize(fixedRecords()).ConnectionRetries, "no retry, 0 (omitted from the JSON)")
}

// TestSummarizeGenTPSWithoutTPOT: only a missing gen_tps is skipped; a
// gen_tps without a tpot_ms beside it is summarised, as the reference
// summarises gen_tps 20 and 10 as mean 15.
func TestSummarizeGenTPSWithoutTPOT(t *testing.T) {
	recs := []Record{
		{CaseID: "a", Metrics: Metrics{E2ELms: 100, TTFTms: 10, TPOTms: math.NaN(), GenTPS: 20}, Quality: Quality{OK: true}, OK: true},
		{CaseID: "a", Repetition: 1, Metrics: Metrics{E2ELms: 100, TTFTms: 10, TPOTms: math.NaN(), GenTPS: 10}, Quality: Quality{OK: true}, OK: true},
		{CaseID: "a", Repetition: 2, Metrics: Metrics{E2ELms: 100, TTFTms: 10, TPOTms: math.NaN(), GenTPS: math.NaN()}, Quality: Quality{OK: true}, OK: true},
	}
	s := Summarize(recs)
	require.NotNil(t, s.GenTPS)
	assert.Equal(t, 15.0, s.GenTPS.Mean, "gen_tps 20 and 10 without tpot_ms: mean 15")
	assert.Equal(t, 1, s.GenTPSSkipped, "only the missing gen_tps is skipped")
}
