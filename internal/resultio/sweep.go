package resultio

import "github.com/benchserve/benchserve/results"

// SweepRow returns r's cells in ResultColumns order (reference:
// _result_to_dict): nil for a nil EnableThinking, otherwise string, int,
// float64 or bool.
func SweepRow(r results.SweepResult) []any {
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

// SweepRows returns one row per sweep result, cells in ResultColumns
// order (reference: the rows of write_csv / write_sqlite).
func SweepRows(sweep []results.SweepResult) [][]any {
	rows := make([][]any, 0, len(sweep))
	for _, r := range sweep {
		rows = append(rows, SweepRow(r))
	}
	return rows
}

// FormatSweepTable renders the TableColumns of each result as a tabulate
// "simple" table with floats rounded to one decimal (reference:
// format_table); layout as FormatTable.
func FormatSweepTable(sweep []results.SweepResult) []byte {
	idx := columnIndex(ResultColumns, TableColumns)
	rows := make([][]any, 0, len(sweep))
	for _, r := range sweep {
		rows = append(rows, pick(SweepRow(r), idx))
	}
	return []byte(tabulateSimple(TableColumns, rows))
}

// FormatSweepJSON renders results as a JSON array of objects with every
// ResultColumns key, like json.dumps(..., indent=2) (reference:
// format_json); "[]" for none. NaN/Inf become null, as in FormatJSON.
func FormatSweepJSON(sweep []results.SweepResult) ([]byte, error) {
	if sweep == nil {
		sweep = []results.SweepResult{}
	}
	return pyJSON(sweep, jsonOpts{indent: true})
}

// FormatSweepCSV renders a ResultColumns header and one row per result as
// Python's csv.DictWriter does (reference: format_csv); see FormatCSV.
func FormatSweepCSV(sweep []results.SweepResult) []byte {
	return writePyCSV(ResultColumns, SweepRows(sweep))
}

// FormatSweepSQL renders "CREATE TABLE IF NOT EXISTS bench_serve
// (SQLSchema);" and one INSERT per result, escaped by SQLLiteral, joined by
// "\n" (reference: format_sql).
func FormatSweepSQL(sweep []results.SweepResult) []byte {
	return formatSQL(SweepTable, SQLSchema, SweepRows(sweep))
}

// FormatSweep renders results in one of Formats (the CLI's --format for
// sweeps); other formats return an error wrapping ErrUnknownFormat.
func FormatSweep(sweep []results.SweepResult, format string) ([]byte, error) {
	switch format {
	case "json":
		return FormatSweepJSON(sweep)
	case "csv":
		return FormatSweepCSV(sweep), nil
	case "sql":
		return FormatSweepSQL(sweep), nil
	case "table":
		return FormatSweepTable(sweep), nil
	}
	return nil, unknownFormat(format)
}
