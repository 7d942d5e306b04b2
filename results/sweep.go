package results

import (
	"context"
)

// SweepResult is one prompt-sweep configuration's aggregated result
// (reference: the BenchServeResult dataclass), field for field in
// ResultColumns order; JSON keys are the column names. Times in ms, rates
// in tokens/s (requests_per_s in requests/s), memory in GB. Use
// NewSweepResult for the reference's defaults.
type SweepResult struct {
	RunID          string  `json:"run_id"`
	Timestamp      string  `json:"timestamp"`
	Tag            string  `json:"tag"`
	Chip           string  `json:"chip"`
	GPUCores       int     `json:"gpu_cores"`
	MemoryGB       float64 `json:"memory_gb"`
	BandwidthGBs   float64 `json:"bandwidth_gbs"`
	OSVersion      string  `json:"os_version"`
	ModelID        string  `json:"model_id"`
	ModelType      string  `json:"model_type"`
	EngineType     string  `json:"engine_type"`
	MTPEnabled     bool    `json:"mtp_enabled"`
	SpecPrefill    bool    `json:"specprefill"`
	KVQuant        string  `json:"kv_quant"`
	CacheType      string  `json:"cache_type"`
	PromptSet      string  `json:"prompt_set"`
	Concurrency    int     `json:"concurrency"`
	MaxTokens      int     `json:"max_tokens"`
	EnableThinking *bool   `json:"enable_thinking"`
	ExtraBody      string  `json:"extra_body"`
	Repetition     int     `json:"repetition"`
	PromptTokens   int     `json:"prompt_tokens"`
	TTFTms         float64 `json:"ttft_ms"`
	TPOTms         float64 `json:"tpot_ms"`
	E2ELms         float64 `json:"e2e_latency_ms"`
	GenTPS         float64 `json:"gen_tps"`
	PromptTPS      float64 `json:"prompt_tps"`
	ThroughputTPS  float64 `json:"throughput_tps"`
	RequestsPerS   float64 `json:"requests_per_s"`
	MetalActiveGB  float64 `json:"metal_active_gb"`
	MetalPeakGB    float64 `json:"metal_peak_gb"`
	MetalCacheGB   float64 `json:"metal_cache_gb"`
	CacheHits      int     `json:"cache_hits"`
	CacheMisses    int     `json:"cache_misses"`
	CacheHitRate   float64 `json:"cache_hit_rate"`
	TokensSaved    int     `json:"tokens_saved"`
	Validated      bool    `json:"validated"`
}

// NewSweepResult returns a SweepResult with the reference dataclass
// defaults: Concurrency 1, MaxTokens 256, Validated true, the rest zero
// (EnableThinking nil).
func NewSweepResult() SweepResult {
	return SweepResult{Concurrency: 1, MaxTokens: 256, Validated: true}
}

// Row returns r's cells in ResultColumns order (reference:
// _result_to_dict): nil for a nil EnableThinking, otherwise string, int,
// float64 or bool.
func (r SweepResult) Row() []any {
	return []any{
		r.RunID, r.Timestamp, r.Tag, r.Chip, r.GPUCores, r.MemoryGB, r.BandwidthGBs,
		r.OSVersion, r.ModelID, r.ModelType, r.EngineType, r.MTPEnabled, r.SpecPrefill,
		r.KVQuant, r.CacheType, r.PromptSet, r.Concurrency, r.MaxTokens,
		optBool(r.EnableThinking), r.ExtraBody, r.Repetition, r.PromptTokens, r.TTFTms,
		r.TPOTms, r.E2ELms, r.GenTPS, r.PromptTPS, r.ThroughputTPS,
		r.RequestsPerS, r.MetalActiveGB, r.MetalPeakGB, r.MetalCacheGB,
		r.CacheHits, r.CacheMisses, r.CacheHitRate, r.TokensSaved, r.Validated,
	}
}

func sweepRows(results []SweepResult) [][]any {
	rows := make([][]any, 0, len(results))
	for _, r := range results {
		rows = append(rows, r.Row())
	}
	return rows
}

// FormatSweepTable renders the TableColumns of each result as a tabulate
// "simple" table with floats rounded to one decimal (reference:
// format_table); layout as FormatTable.
func FormatSweepTable(results []SweepResult) []byte {
	idx := columnIndex(ResultColumns, TableColumns)
	rows := make([][]any, 0, len(results))
	for _, r := range results {
		rows = append(rows, pick(r.Row(), idx))
	}
	return []byte(tabulateSimple(TableColumns, rows))
}

// FormatSweepJSON renders results as a JSON array of objects with every
// ResultColumns key, like json.dumps(..., indent=2) (reference:
// format_json); "[]" for none. NaN/Inf become null, as in FormatJSON.
func FormatSweepJSON(results []SweepResult) ([]byte, error) {
	if results == nil {
		results = []SweepResult{}
	}
	return pyJSON(results, jsonOpts{indent: true})
}

// FormatSweepCSV renders a ResultColumns header and one row per result as
// Python's csv.DictWriter does (reference: format_csv); see FormatCSV.
func FormatSweepCSV(results []SweepResult) []byte {
	return writePyCSV(ResultColumns, sweepRows(results))
}

// FormatSweepSQL renders "CREATE TABLE IF NOT EXISTS bench_serve
// (SQLSchema);" and one INSERT per result, escaped by SQLLiteral, joined by
// "\n" (reference: format_sql).
func FormatSweepSQL(results []SweepResult) []byte {
	return formatSQL(SweepTable, SQLSchema, sweepRows(results))
}

// FormatSweep renders results in one of Formats (the CLI's --format for
// sweeps); other formats return an error wrapping ErrUnknownFormat.
func FormatSweep(results []SweepResult, format string) ([]byte, error) {
	switch format {
	case "json":
		return FormatSweepJSON(results)
	case "csv":
		return FormatSweepCSV(results), nil
	case "sql":
		return FormatSweepSQL(results), nil
	case "table":
		return FormatSweepTable(results), nil
	}
	return nil, unknownFormat(format)
}

// WriteSweepSQLite appends results to table bench_serve of the SQLite
// database at path (reference: write_sqlite), creating file and table
// (SQLSchema) when missing, all rows in one transaction; see WriteRows.
func WriteSweepSQLite(results []SweepResult, path string) error {
	return WriteRows(context.Background(), path, SweepTable, SQLSchema, ResultColumns, sweepRows(results))
}
