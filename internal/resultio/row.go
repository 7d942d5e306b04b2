package resultio

import (
	"math"
	"strings"

	"github.com/benchserve/benchserve/results"
)

// RecordRow flattens a record into one row of WorkloadResultColumns, in
// that order (reference: _workload_record_to_row). Cell values are nil
// (Python None), bool, int, int64, float64 or string:
//   - tags joined by ",";
//   - request_extra_body is json.dumps(extra_body, sort_keys=True) with
//     Python's separators ", " and ": " and \uXXXX escapes ("{}" when
//     empty); quality_issues is json.dumps(issues) likewise ("[]");
//   - request_enable_thinking, within_policy_timeout, finish_reason and
//     cache_hits/cache_misses/tokens_saved are nil when absent (the cache
//     counters are nil, not 0, when the server exposes none);
//   - policy_timeout_ms is an int64 when integral (the reference's int).
//
// A value json.dumps cannot represent in extra_body is written with
// encoding/json's best effort, never an error.
func RecordRow(r results.Record) []any {
	extra, err := pyDumps(r.Request.ExtraBody)
	if err != nil {
		extra = "{}"
	}
	issues, err := pyDumps(r.Quality.Issues)
	if err != nil {
		issues = "[]"
	}
	return []any{
		r.RunID,
		r.Timestamp,
		r.Workload,
		r.CaseID,
		r.Repetition,
		strings.Join(r.Tags, ","),
		r.ModelID,
		r.Hardware.Chip,
		r.Hardware.MemoryGB,
		r.Hardware.OSVersion,
		r.Runtime.EngineType,
		r.Runtime.ModelType,
		r.Runtime.MTPEnabled,
		r.Runtime.SpecPrefill,
		r.Runtime.KVQuant,
		r.Runtime.CacheType,
		r.Request.MaxTokens,
		optBool(r.Request.EnableThinking),
		extra,
		optIntish(r.Policy.TimeoutMS),
		optBool(r.Policy.WithinTimeout),
		r.Metrics.TTFTms,
		optMeasured(r.Metrics.TPOTms),
		r.Metrics.E2ELms,
		optMeasured(r.Metrics.GenTPS),
		r.Metrics.PromptTPS,
		r.Metrics.PromptTokens,
		r.Metrics.CompletionTokens,
		optInt64(r.Metrics.CacheHits),
		optInt64(r.Metrics.CacheMisses),
		optInt64(r.Metrics.TokensSaved),
		r.Metrics.Metal.MetalActiveGB,
		r.Metrics.Metal.MetalPeakGB,
		r.Metrics.Metal.MetalCacheGB,
		r.Quality.OK,
		issues,
		optString(r.Quality.FinishReason),
		r.Quality.ContentChars,
		r.Quality.ContentPreview,
	}
}

// RecordRowMap is RecordRow keyed by column name.
func RecordRowMap(r results.Record) map[string]any {
	row := RecordRow(r)
	m := make(map[string]any, len(row))
	for i, c := range WorkloadResultColumns {
		m[c] = row[i]
	}
	return m
}

// optMeasured is nil (an empty cell, SQL NULL) for a NaN rate: a decode
// span that was not observable (Metrics.DecodeTiming).
func optMeasured(f float64) any {
	if math.IsNaN(f) {
		return nil
	}
	return f
}

func optBool(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

func optString(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func optInt64(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func optIntish(p *float64) any {
	if p == nil {
		return nil
	}
	if f := *p; f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return *p
}
