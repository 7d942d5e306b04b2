package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// RowInfo is what a sweep row holds besides its round's measurements.
type RowInfo struct {
	RunID, Timestamp, Tag, Model string
	Runtime                      results.Runtime
	Hardware                     results.Hardware
	MaxTokens, PromptTokens      int
	// NoValidate counts only failed requests against the row, not
	// answers that failed validation (--validate false).
	NoValidate bool
}

// Row is the sweep row of point pt: a view of its round's records (the
// engine's verdicts) and side measurements, with the counts of what went
// wrong (see Run for the columns' definitions).
func Row(pt Point, rr runner.RoundResult, info RowInfo) Outcome {
	row := results.NewSweepResult()
	row.RunID, row.Timestamp, row.Tag = info.RunID, info.Timestamp, info.Tag
	hw, rt := info.Hardware, info.Runtime
	row.Chip, row.GPUCores, row.MemoryGB, row.BandwidthGBs, row.OSVersion = hw.Chip, hw.GPUCores, hw.MemoryGB, hw.BandwidthGBs, hw.OSVersion
	row.ModelID, row.ModelType, row.EngineType = info.Model, rt.ModelType, rt.EngineType
	row.MTPEnabled, row.SpecPrefill, row.KVQuant, row.CacheType = rt.MTPEnabled, rt.SpecPrefill, rt.KVQuant, rt.CacheType
	row.PromptSet, row.Concurrency, row.MaxTokens = pt.PromptSet, pt.Concurrency, info.MaxTokens
	row.EnableThinking, row.ExtraBody, row.Repetition = pt.Thinking, pt.ExtraBody, pt.Repetition
	row.PromptTokens = info.PromptTokens

	recs := make([]*results.Record, len(rr.Outcomes))
	for i := range rr.Outcomes {
		if rr.Sent[i] {
			recs[i] = &rr.Outcomes[i].Record
		}
	}
	agg := summary.SweepRowOf(recs, pt.Concurrency, !info.NoValidate)
	if pt.Rate > 0 {
		rate := pt.Rate
		row.RequestRate = &rate
		if rr.Run != nil {
			agg.OverWall(rr.Run.Duration.Seconds())
		}
	}
	o := Outcome{Requests: len(recs), Failed: agg.Failed, Invalid: agg.Invalid, Capped: agg.Capped, Reasons: agg.Reasons}
	if agg.Valid == 0 {
		row.Validated = false
		o.Row = row
		return o
	}
	row.TTFTms, row.TPOTms, row.E2ELms = agg.TTFT, agg.TPOT, agg.E2E
	row.GenTPS, row.PromptTPS = agg.GenTPS, agg.PromptTPS
	row.ThroughputTPS, row.RequestsPerS = agg.Throughput, agg.RPS
	row.MetalActiveGB, row.MetalPeakGB, row.MetalCacheGB = rr.Metal.MetalActiveGB, rr.Metal.MetalPeakGB, rr.Metal.MetalCacheGB
	hits, misses := deltaInt(rr.CacheHits), deltaInt(rr.CacheMisses)
	row.CacheHits, row.CacheMisses = hits, misses
	row.TokensSaved = deltaInt(rr.TokensSaved)
	if hits+misses > 0 {
		row.CacheHitRate = float64(hits) / float64(hits+misses)
	}
	row.Validated = agg.Validated && agg.Failed == 0
	o.Row = row
	return o
}

// Outcome is one sweep row together with what its requests did, so a
// failure is never hidden behind a mean.
type Outcome struct {
	// Row is the reference's sweep row.
	Row results.SweepResult
	// Requests is the number of measured requests (the concurrency).
	Requests int
	// Failed counts requests that failed on the wire (HTTP error, error in
	// the stream, cut stream, transport error).
	Failed int
	// Invalid counts answers that failed validation for a reason other
	// than hitting max_tokens (empty content, no finish reason).
	Invalid int
	// Capped counts answers that ended with finish_reason "length": the
	// expected ending of a capped benchmark, which the reference's
	// validated flag still counts against the row.
	Capped int
	// Reasons are the first distinct reasons of the failed and invalid
	// requests (at most MaxReasons).
	Reasons []string
}

// MaxReasons bounds Outcome.Reasons.
const MaxReasons = summary.MaxReasons

// OK reports whether every request succeeded and every answer is valid or
// only capped by max_tokens: the CLI's exit status follows it.
func (o Outcome) OK() bool { return o.Failed == 0 && o.Invalid == 0 }

// Label is the progress label of a point, as the reference prints it:
// "short conc=4 rep=0", plus " think=True" and " eb=<first 20 chars>" when
// set.
func Label(pt Point) string {
	parts := []string{pt.PromptSet, fmt.Sprintf("conc=%d", pt.Concurrency)}
	if pt.Rate > 0 {
		parts = append(parts, "rate="+strconv.FormatFloat(pt.Rate, 'g', -1, 64))
	}
	parts = append(parts, fmt.Sprintf("rep=%d", pt.Repetition))
	if pt.Thinking != nil {
		parts = append(parts, "think="+pyBool(*pt.Thinking))
	}
	if pt.ExtraBody != "" {
		parts = append(parts, "eb="+py.Head(pt.ExtraBody, 20))
	}
	return strings.Join(parts, " ")
}

// deltaInt is a counter delta with an unavailable counter as 0.
func deltaInt(d *int64) int {
	if d != nil {
		return int(*d)
	}
	return 0
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
