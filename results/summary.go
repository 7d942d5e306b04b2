package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/internal/stats"
)

// groupByCase buckets records by CaseID, keeping each bucket in input order
// (reference: _group_results_by_case_id).
func groupByCase(records []Record) map[string][]Record {
	cases := make(map[string][]Record)
	for _, r := range records {
		cases[r.CaseID] = append(cases[r.CaseID], r)
	}
	return cases
}

// timedSamples collects e2e latency, TTFT and gen_tps of the records whose
// request succeeded (Error == ""). This is benchserve's one deliberate
// departure from the reference, which feeds the zero-valued metrics of a
// failed request into the statistics and so drags means and low
// percentiles down; a failed request has no latency to report. A gen_tps
// that was not measured (NaN, null in JSON: the decode span was one chunk
// or a burst, Metrics.DecodeTiming) is left out too and counted in
// skipped; a gen_tps without a tpot_ms is summarised, as the reference.
func timedSamples(records []Record) (latency, ttft, genTPS []float64, skipped int) {
	for _, r := range records {
		if r.Error != "" {
			continue
		}
		latency = append(latency, r.Metrics.E2ELms)
		ttft = append(ttft, r.Metrics.TTFTms)
		if math.IsNaN(r.Metrics.GenTPS) {
			// Only a missing gen_tps is skipped, not one without a
			// tpot_ms beside it: the reference summarises gen_tps 20 and
			// 10 as mean 15 whatever tpot_ms says (benchserve's own
			// records have both or neither, stats.DecodeTimed).
			skipped++
			continue
		}
		genTPS = append(genTPS, r.Metrics.GenTPS)
	}
	return latency, ttft, genTPS, skipped
}

// policyOutcome returns policy_timeout_passed and
// policy_timeout_failure_count: both nil when no record had a policy
// timeout (Policy.WithinTimeout == nil everywhere).
func policyOutcome(records []Record) (*bool, *int) {
	trials, failures := 0, 0
	for _, r := range records {
		if r.Policy.WithinTimeout == nil {
			continue
		}
		trials++
		if !*r.Policy.WithinTimeout {
			failures++
		}
	}
	if trials == 0 {
		return nil, nil
	}
	passed := failures == 0
	return &passed, &failures
}

func qualityFailures(records []Record) int {
	n := 0
	for _, r := range records {
		if !r.Quality.OK {
			n++
		}
	}
	return n
}

func failureRate(failures, total int) float64 {
	if total == 0 {
		return 0
	}
	return py.Round(float64(failures)/float64(total), 4)
}

// SummarizeCase builds one case's summary block (reference:
// _summarize_case): sample_count, the sorted distinct repetitions, pass/fail
// from Quality.OK, failure_rate rounded to 4 places, the policy-timeout
// outcome (nil when the case has no policy timeout), and latency_ms
// (e2e), ttft_ms, gen_tps and content_chars statistics (nil, JSON {}, when
// there are no samples). Records whose request failed (Error != "") count
// as samples and failures but are left out of the latency, TTFT and gen_tps
// statistics; content_chars covers every record, as in the reference.
// Interrupted records (MarkInterrupted) are left out of everything and
// counted in InterruptedCount; Passed is false when there is one (the
// case was not run to the end).
func SummarizeCase(records []Record) CaseSummary {
	records, interrupted := measured(records)
	failures := qualityFailures(records)
	passedPolicy, policyFailures := policyOutcome(records)
	reps := make([]int, 0, len(records))
	chars := make([]float64, 0, len(records))
	for _, r := range records {
		if !slices.Contains(reps, r.Repetition) {
			reps = append(reps, r.Repetition)
		}
		chars = append(chars, float64(r.Quality.ContentChars))
	}
	slices.Sort(reps)
	latency, ttft, genTPS, skipped := timedSamples(records)
	return CaseSummary{
		GenTPSSkipped:             skipped,
		SampleCount:               len(records),
		Repetitions:               reps,
		Passed:                    failures == 0 && interrupted == 0,
		FailureCount:              failures,
		FailureRate:               failureRate(failures, len(records)),
		PolicyTimeoutPassed:       passedPolicy,
		PolicyTimeoutFailureCount: policyFailures,
		LatencyMS:                 statsOrNil(latency),
		TTFTms:                    statsOrNil(ttft),
		GenTPS:                    statsOrNil(genTPS),
		ContentChars:              statsOrNil(chars),
		InterruptedCount:          interrupted,
	}
}

// Summarize aggregates a run's records into the payload's summary block
// (reference: summarize_workload_results). case_count counts records (case ×
// repetition), unique_case_count distinct case IDs, repetition_count the
// largest number of distinct repetitions of any case (0 for no records).
// passed/quality_passed are true when every record's Quality.OK is true;
// failure_rate is rounded to 4 places (0 for no records). The policy-timeout
// outcome is nil when no record had a policy timeout. latency_ms, ttft_ms
// and gen_tps are nil (JSON {}) without samples and, unlike the reference,
// leave out records whose request failed (Error != ""): those still count
// in case_count and the failure counts. CaseSummaries is never nil.
//
// Records of requests in flight when the run was stopped (Interrupted,
// see MarkInterrupted) are no measurement: they are left out of every
// count and statistic, case_count included, and counted in
// interrupted_count instead; passed and quality_passed are false when
// there is one (the run did not finish). A case whose only records were
// interrupted still has an entry in CaseSummaries. A run without a
// measured record does not pass (the reference's all([]) would): nothing
// was shown to work.
func Summarize(records []Record) RunSummary {
	all := records
	records, interrupted := measured(records)
	failures := qualityFailures(records)
	passedPolicy, policyFailures := policyOutcome(records)
	cases := groupByCase(all)
	summaries := make(map[string]CaseSummary, len(cases))
	repCount := 0
	for id, rs := range cases {
		cs := SummarizeCase(rs)
		summaries[id] = cs
		repCount = max(repCount, len(cs.Repetitions))
	}
	latency, ttft, genTPS, skipped := timedSamples(records)
	return RunSummary{
		GenTPSSkipped:             skipped,
		CaseCount:                 len(records),
		UniqueCaseCount:           len(cases),
		RepetitionCount:           repCount,
		Passed:                    failures == 0 && interrupted == 0 && len(records) > 0,
		FailureCount:              failures,
		FailureRate:               failureRate(failures, len(records)),
		QualityPassed:             failures == 0 && interrupted == 0 && len(records) > 0,
		QualityFailureCount:       failures,
		PolicyTimeoutPassed:       passedPolicy,
		PolicyTimeoutFailureCount: policyFailures,
		LatencyMS:                 statsOrNil(latency),
		TTFTms:                    statsOrNil(ttft),
		GenTPS:                    statsOrNil(genTPS),
		CaseSummaries:             summaries,
		InterruptedCount:          interrupted,
		ConnectionRetries:         connectionRetries(records),
		PromptCache:               promptCache(records),
		Lengths:                   summarizeLengths(records),
	}
}

// connectionRetries is the sum of the records' connection_retries.
func connectionRetries(records []Record) int {
	n := 0
	for _, r := range records {
		n += r.Metrics.ConnectionRetries
	}
	return n
}

// emptyObject marshals as {} (the reference's empty stats block).
type emptyObject struct{}

func statsJSON(s *Stats) any {
	if s == nil {
		return emptyObject{}
	}
	return s
}

// MarshalJSON writes the reference shape: nil statistics as {} (from
// _summary_or_empty), everything else as tagged. It uses encoding/json, so
// NaN statistics are an error here; FormatJSON writes them as null.
func (s CaseSummary) MarshalJSON() ([]byte, error) {
	type plain CaseSummary
	return json.Marshal(struct {
		plain
		LatencyMS    any `json:"latency_ms"`
		TTFTms       any `json:"ttft_ms"`
		GenTPS       any `json:"gen_tps"`
		ContentChars any `json:"content_chars"`
	}{plain(s), statsJSON(s.LatencyMS), statsJSON(s.TTFTms), statsJSON(s.GenTPS), statsJSON(s.ContentChars)})
}

// UnmarshalJSON reads what MarshalJSON (or the reference) writes; an empty
// object {} (or null) for a statistics block becomes a nil *Stats.
func (s *CaseSummary) UnmarshalJSON(b []byte) error {
	type plain CaseSummary
	var aux struct {
		*plain
		LatencyMS    json.RawMessage `json:"latency_ms"`
		TTFTms       json.RawMessage `json:"ttft_ms"`
		GenTPS       json.RawMessage `json:"gen_tps"`
		ContentChars json.RawMessage `json:"content_chars"`
	}
	aux.plain = (*plain)(s)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	return decodeStatsBlocks(
		statsBlock{&s.LatencyMS, aux.LatencyMS}, statsBlock{&s.TTFTms, aux.TTFTms},
		statsBlock{&s.GenTPS, aux.GenTPS}, statsBlock{&s.ContentChars, aux.ContentChars})
}

// MarshalJSON writes the reference shape and key order, with nil
// statistics as {}; see CaseSummary.MarshalJSON.
func (s RunSummary) MarshalJSON() ([]byte, error) {
	type plain RunSummary
	cs := s.CaseSummaries
	if cs == nil {
		cs = map[string]CaseSummary{}
	}
	return json.Marshal(struct {
		plain
		LatencyMS     any                    `json:"latency_ms"`
		TTFTms        any                    `json:"ttft_ms"`
		GenTPS        any                    `json:"gen_tps"`
		CaseSummaries map[string]CaseSummary `json:"case_summaries"`
	}{plain(s), statsJSON(s.LatencyMS), statsJSON(s.TTFTms), statsJSON(s.GenTPS), cs})
}

// UnmarshalJSON reads what MarshalJSON (or the reference) writes; {} (or
// null) statistics become nil.
func (s *RunSummary) UnmarshalJSON(b []byte) error {
	type plain RunSummary
	var aux struct {
		*plain
		LatencyMS json.RawMessage `json:"latency_ms"`
		TTFTms    json.RawMessage `json:"ttft_ms"`
		GenTPS    json.RawMessage `json:"gen_tps"`
	}
	aux.plain = (*plain)(s)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	return decodeStatsBlocks(
		statsBlock{&s.LatencyMS, aux.LatencyMS}, statsBlock{&s.TTFTms, aux.TTFTms},
		statsBlock{&s.GenTPS, aux.GenTPS})
}

// statsBlock is one statistics block of a summary: its raw JSON and the
// field it decodes into.
type statsBlock struct {
	dst **Stats
	raw json.RawMessage
}

// decodeStatsBlocks decodes each block into its field (decodeOptStats: {}
// or null is nil), stopping at the first error.
func decodeStatsBlocks(blocks ...statsBlock) error {
	for _, b := range blocks {
		st, err := decodeOptStats(b.raw)
		if err != nil {
			return err
		}
		*b.dst = st
	}
	return nil
}

// decodeOptStats decodes one statistics block; {} or null (or absent) is
// nil, as the reference's _summary_or_empty wrote it.
func decodeOptStats(raw json.RawMessage) (*Stats, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	var st Stats
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// statsOrNil is _summary_or_empty: nil (JSON {}) for no samples.
func statsOrNil(values []float64) *Stats {
	s, err := computeStats(values)
	if err != nil {
		return nil
	}
	return &s
}

// Stats is the statistics block of the reference's summaries
// (compute_summary_stats): mean, sample standard deviation, min, max and
// p50/p95/p99 by linear interpolation between closest ranks, in the
// metric's unit (ms, tokens/s, characters). Every summary, SLO threshold
// and report computes it the same way (Dist carries the same values).
type Stats struct {
	// Mean is the arithmetic mean, correctly rounded as Python's
	// statistics.mean.
	Mean float64 `json:"mean"`
	// Stddev is the sample standard deviation (n − 1), 0 for one sample,
	// as Python's statistics.stdev.
	Stddev float64 `json:"stddev"`
	// Min and Max are the smallest and largest sample.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// P50, P95 and P99 are percentiles by linear interpolation between
	// closest ranks: idx = p/100·(n−1) into the sorted samples.
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// errNoSamples is computeStats' error for an empty input (the reference
// raises ValueError("Cannot compute summary stats on empty list")).
var errNoSamples = errors.New("results: no samples")

// computeStats summarizes values (reference: compute_summary_stats); values
// is not modified. NaN inputs propagate into the result as in the
// reference; an empty input is errNoSamples.
func computeStats(values []float64) (Stats, error) {
	n := len(values)
	if n == 0 {
		return Stats{}, errNoSamples
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	mean, stddev := py.MeanStdev(values)
	return Stats{
		Mean:   mean,
		Stddev: stddev,
		Min:    sorted[0],
		Max:    sorted[n-1],
		P50:    stats.Percentile(sorted, 50),
		P95:    stats.Percentile(sorted, 95),
		P99:    stats.Percentile(sorted, 99),
	}, nil
}
