package report

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// ErrBadInput is matched (errors.Is) by every Load error: the file is
// missing, unreadable, or not a workload payload, sweep array, capacity
// search result or benchserve/reference SQLite database.
var ErrBadInput = errors.New("report: bad input")

// sqliteMagic starts every SQLite 3 database file.
var sqliteMagic = []byte("SQLite format 3\x00")

func badInput(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrBadInput, path, fmt.Sprintf(format, args...))
}

// Load reads one results file and returns its runs, detecting the kind by
// content (and extension for SQLite):
//   - a JSON object with a "results" array: a workload payload (one Run,
//     labelled with the file name without extension);
//   - a JSON object with "capacity_rps" or "capacity_concurrency": a
//     capacity search's result (capacity.json, capacity.Result), one Run
//     labelled with the file name; its "by", capacity key, probes' loads
//     and SLO expressions are checked;
//   - a JSON array of sweep rows (objects with "prompt_set" and
//     "concurrency", as FormatSweepJSON writes): one sweep Run;
//   - a SQLite database (by its header; .db/.sqlite/.sqlite3 files must
//     be one) with table bench_serve_workload and/or bench_serve, as
//     benchserve and the reference write them: one Run per run_id and
//     table, labelled "<file>:<run id>". SQLite rows do not store
//     started_at, so those runs have no request timeline;
//   - a run's journal (a .jsonl file, or any file starting with a
//     journal header, see resultio.Journal): one Run of the records that
//     finished, labelled with the output's name ("out.json.journal.jsonl"
//     → "out"), so an interrupted run can be reported as it is.
//
// JSON files over MaxInputBytes, directories and devices are refused
// before they are read. Every error wraps ErrBadInput and names the file.
func Load(path string) ([]Run, error) {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	ext := strings.ToLower(filepath.Ext(path))
	head, err := readHead(path, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if bytes.HasPrefix(head, sqliteMagic) {
		return loadSQLite(path, base)
	}
	if ext == ".db" || ext == ".sqlite" || ext == ".sqlite3" {
		return nil, badInput(path, "not a SQLite database (no SQLite header)")
	}
	if ext == ".jsonl" || resultio.IsJournal(head) {
		return loadJournal(path)
	}
	data, err := resultio.ReadFileLimit(path, MaxInputBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if resultio.IsJournal(data) {
		return loadJournal(path)
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return nil, badInput(path, "empty file")
	}
	switch trimmed[0] {
	case '{':
		return loadPayload(path, base, trimmed)
	case '[':
		return loadSweepJSON(path, base, trimmed)
	}
	return nil, badInput(path, "not a benchserve results file: want a workload payload or capacity result (JSON object), a sweep (JSON array) or a SQLite database")
}

// MaxInputBytes caps a JSON results file Load reads: 256 MiB, far above
// any payload benchserve writes (records keep at most 8 MiB of content
// each, and only with include_content). A larger file, a directory or a
// device (/dev/zero) is refused with an error naming it before it fills
// memory. SQLite files and journals are read incrementally and have no
// such cap.
const MaxInputBytes = 256 << 20

// readHead returns up to n first bytes of path, refusing directories and
// devices (resultio.ErrNotAFile) without reading them.
func readHead(path string, n int) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: %w: is a directory", path, resultio.ErrNotAFile)
	}
	if fi.Mode()&os.ModeDevice != 0 {
		return nil, fmt.Errorf("%s: %w: is a device", path, resultio.ErrNotAFile)
	}
	if !fi.Mode().IsRegular() { // a pipe can be read once only
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	m, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return head[:m], nil
}

// loadJournal reads a run's journal (resultio.Journal, the
// "<output>.journal.jsonl" a run leaves when it is stopped) as one Run,
// labelled with the file name up to ".journal.jsonl"; a torn last line is
// dropped.
func loadJournal(path string) ([]Run, error) {
	p, err := resultio.ReadJournalPayload(path)
	if err != nil {
		return nil, badInput(path, "journal: %v", err)
	}
	base := filepath.Base(path)
	if b, ok := strings.CutSuffix(base, resultio.JournalSuffix); ok {
		base = strings.TrimSuffix(b, filepath.Ext(b))
	} else {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return []Run{FromPayload(p, base)}, nil
}

func loadPayload(path, base string, data []byte) ([]Run, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, badInput(path, "invalid JSON: %v", err)
	}
	_, rps := keys["capacity_rps"]
	_, conc := keys["capacity_concurrency"]
	if rps || conc {
		return loadCapacity(path, base, data, keys)
	}
	raw, ok := keys["results"]
	if !ok || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		return nil, badInput(path, `a JSON object without a "results" array is not a workload payload (nor, without "capacity_rps" or "capacity_concurrency", a capacity result)`)
	}
	var p results.Payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, badInput(path, "workload payload: %v", err)
	}
	if _, ok := keys["summary"]; !ok {
		p.Summary = results.Summarize(p.Results)
	}
	return []Run{FromPayload(&p, base)}, nil
}

func loadSweepJSON(path, base string, data []byte) ([]Run, error) {
	var objs []map[string]json.RawMessage
	if err := json.Unmarshal(data, &objs); err != nil {
		return nil, badInput(path, "invalid JSON or not an array of sweep rows: %v", err)
	}
	if len(objs) == 0 {
		return nil, badInput(path, "an empty JSON array has no sweep rows to report")
	}
	for i, o := range objs {
		_, hasSet := o["prompt_set"]
		_, hasConc := o["concurrency"]
		if !hasSet || !hasConc {
			return nil, badInput(path, `row %d: a sweep row needs "prompt_set" and "concurrency"`, i)
		}
	}
	var rows []results.SweepResult
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, badInput(path, "sweep rows: %v", err)
	}
	return groupSweep(rows, base, false), nil
}

// groupSweep splits rows by run_id (first-seen order); labels get the run
// id only when there is more than one run or always is set.
func groupSweep(rows []results.SweepResult, base string, always bool) []Run {
	var order []string
	by := map[string][]results.SweepResult{}
	for _, r := range rows {
		if _, ok := by[r.RunID]; !ok {
			order = append(order, r.RunID)
		}
		by[r.RunID] = append(by[r.RunID], r)
	}
	runs := make([]Run, 0, len(order))
	for _, id := range order {
		label := base
		if always || len(order) > 1 {
			label = base + ":" + id
		}
		runs = append(runs, FromSweep(by[id], label))
	}
	return runs
}

func loadSQLite(path, base string) ([]Run, error) {
	ctx := context.Background()
	tables, err := sqliteTables(ctx, path)
	if err != nil {
		return nil, badInput(path, "%v", err)
	}
	var runs []Run
	if tables[resultio.WorkloadTable] {
		rows, err := history.ReadRows(ctx, path, resultio.WorkloadTable)
		if err != nil {
			return nil, badInput(path, "%v", err)
		}
		runs = append(runs, workloadRuns(rows, base)...)
	}
	if tables[resultio.SweepTable] {
		rows, err := history.ReadRows(ctx, path, resultio.SweepTable)
		if err != nil {
			return nil, badInput(path, "%v", err)
		}
		sweep := make([]results.SweepResult, 0, len(rows))
		for _, m := range rows {
			sweep = append(sweep, sweepRow(m))
		}
		runs = append(runs, groupSweep(sweep, base, true)...)
	}
	if len(runs) == 0 {
		return nil, badInput(path, "no rows in tables %s or %s", resultio.WorkloadTable, resultio.SweepTable)
	}
	return runs, nil
}

func sqliteTables(ctx context.Context, path string) (map[string]bool, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rs, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := map[string]bool{}
	for rs.Next() {
		var name string
		if err := rs.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rs.Err()
}

// workloadRuns rebuilds one payload per run_id from bench_serve_workload
// rows (the columns of resultio.WorkloadResultColumns).
func workloadRuns(rows []map[string]any, base string) []Run {
	var order []string
	by := map[string][]results.Record{}
	for _, m := range rows {
		rec := workloadRecord(m)
		if _, ok := by[rec.RunID]; !ok {
			order = append(order, rec.RunID)
		}
		by[rec.RunID] = append(by[rec.RunID], rec)
	}
	runs := make([]Run, 0, len(order))
	for _, id := range order {
		recs := by[id]
		p := resultio.BuildPayload(resultio.PayloadInput{
			RunID: id, Timestamp: recs[0].Timestamp,
			Workload: results.WorkloadInfo{Name: recs[0].Workload},
			Records:  recs,
		})
		runs = append(runs, FromPayload(p, base+":"+id))
	}
	return runs
}

func workloadRecord(m map[string]any) results.Record {
	var tags []string
	if s := str(m["tags"]); s != "" {
		tags = strings.Split(s, ",")
	}
	var issues []string
	_ = json.Unmarshal([]byte(str(m["quality_issues"])), &issues)
	if issues == nil {
		issues = []string{}
	}
	var extra map[string]any
	_ = json.Unmarshal([]byte(str(m["request_extra_body"])), &extra)
	model := str(m["model_id"])
	// The history has no error column: a failed request is the one whose
	// issues carry "request error: …" (the record kept its error there).
	errText := ""
	for _, is := range issues {
		if rest, ok := strings.CutPrefix(is, "request error: "); ok {
			errText = rest
			break
		}
	}
	rec := results.Record{
		RunID: str(m["run_id"]), Timestamp: str(m["timestamp"]), Workload: str(m["workload"]),
		CaseID: str(m["case_id"]), Repetition: integer(m["repetition"]), Tags: tags, ModelID: model,
		Runtime: results.Runtime{ModelID: model, EngineType: str(m["engine_type"]), ModelType: str(m["model_type"]),
			MTPEnabled: boolean(m["mtp_enabled"]), SpecPrefill: boolean(m["specprefill"]),
			KVQuant: str(m["kv_quant"]), CacheType: str(m["cache_type"])},
		Hardware: results.Hardware{Chip: str(m["chip"]), MemoryGB: float(m["memory_gb"]), OSVersion: str(m["os_version"])},
		Request: results.RequestInfo{MaxTokens: integer(m["request_max_tokens"]),
			EnableThinking: optBool(m["request_enable_thinking"]), ExtraBody: extra},
		Policy: results.Policy{TimeoutMS: optFloat(m["policy_timeout_ms"]), WithinTimeout: optBool(m["within_policy_timeout"])},
		Metrics: results.Metrics{
			TTFTms: float(m["ttft_ms"]), TPOTms: nullable(m["tpot_ms"]), E2ELms: float(m["e2e_latency_ms"]),
			GenTPS: nullable(m["gen_tps"]), PromptTPS: float(m["prompt_tps"]),
			PromptTokens: integer(m["prompt_tokens"]), CompletionTokens: integer(m["completion_tokens"]),
			CacheHits: optInt64(m["cache_hits"]), CacheMisses: optInt64(m["cache_misses"]), TokensSaved: optInt64(m["tokens_saved"]),
			Metal: results.Metal{Model: model, MetalActiveGB: float(m["metal_active_gb"]), MetalPeakGB: float(m["metal_peak_gb"]),
				MetalCacheGB: float(m["metal_cache_gb"]), CacheType: str(m["cache_type"])},
		},
		Quality: results.Quality{OK: boolean(m["quality_ok"]), Issues: issues, FinishReason: optString(m["finish_reason"]),
			ContentChars: integer(m["content_chars"]), ContentPreview: str(m["content_preview"])},
		OK:    boolean(m["quality_ok"]),
		Error: errText,
	}
	return rec
}

// nullable is a REAL column whose NULL means "not measured" (a rate the
// timing could not support): NaN, as in the record, never 0.
func nullable(v any) float64 {
	if v == nil {
		return math.NaN()
	}
	return float(v)
}

func sweepRow(m map[string]any) results.SweepResult {
	return results.SweepResult{
		RunID: str(m["run_id"]), Timestamp: str(m["timestamp"]), Tag: str(m["tag"]), Chip: str(m["chip"]),
		GPUCores: integer(m["gpu_cores"]), MemoryGB: float(m["memory_gb"]), BandwidthGBs: float(m["bandwidth_gbs"]),
		OSVersion: str(m["os_version"]), ModelID: str(m["model_id"]), ModelType: str(m["model_type"]),
		EngineType: str(m["engine_type"]), MTPEnabled: boolean(m["mtp_enabled"]), SpecPrefill: boolean(m["specprefill"]),
		KVQuant: str(m["kv_quant"]), CacheType: str(m["cache_type"]), PromptSet: str(m["prompt_set"]),
		Concurrency: integer(m["concurrency"]), MaxTokens: integer(m["max_tokens"]),
		EnableThinking: optBool(m["enable_thinking"]), ExtraBody: str(m["extra_body"]),
		Repetition: integer(m["repetition"]), PromptTokens: integer(m["prompt_tokens"]),
		TTFTms: float(m["ttft_ms"]), TPOTms: float(m["tpot_ms"]), E2ELms: float(m["e2e_latency_ms"]),
		GenTPS: float(m["gen_tps"]), PromptTPS: float(m["prompt_tps"]), ThroughputTPS: float(m["throughput_tps"]),
		RequestsPerS: float(m["requests_per_s"]), MetalActiveGB: float(m["metal_active_gb"]),
		MetalPeakGB: float(m["metal_peak_gb"]), MetalCacheGB: float(m["metal_cache_gb"]),
		CacheHits: integer(m["cache_hits"]), CacheMisses: integer(m["cache_misses"]),
		CacheHitRate: float(m["cache_hit_rate"]), TokensSaved: integer(m["tokens_saved"]),
		Validated: boolean(m["validated"]),
	}
}

// Cell readers for what the SQLite driver returns (int64, float64,
// string, []byte, nil); anything else reads as the zero value.

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func float(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return 0
}

func integer(v any) int {
	switch x := v.(type) {
	case int64:
		return int(x)
	case float64:
		return int(x)
	}
	return 0
}

func boolean(v any) bool {
	switch x := v.(type) {
	case int64:
		return x != 0
	case float64:
		return x != 0
	case bool:
		return x
	case string:
		return x == "1" || strings.EqualFold(x, "true")
	}
	return false
}

func optBool(v any) *bool {
	if v == nil {
		return nil
	}
	b := boolean(v)
	return &b
}

func optFloat(v any) *float64 {
	if v == nil {
		return nil
	}
	f := float(v)
	return &f
}

func optInt64(v any) *int64 {
	if v == nil {
		return nil
	}
	i := int64(integer(v))
	return &i
}

func optString(v any) *string {
	if v == nil {
		return nil
	}
	s := str(v)
	return &s
}
