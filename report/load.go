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
	"strconv"
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
//     capacity search's result (capacity.json, results.Capacity), one Run
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
//     journal header, OUTPUT.journal.jsonl beside a run's output): one
//     Run of the records that
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
// devices without reading them.
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

// loadJournal reads a run's journal (the
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
		if err := checkColumns(ctx, path, resultio.WorkloadTable, resultio.WorkloadResultColumns); err != nil {
			return nil, badInput(path, "%v", err)
		}
		rows, err := history.ReadRows(ctx, path, resultio.WorkloadTable)
		if err != nil {
			return nil, badInput(path, "%v", err)
		}
		wr, err := workloadRuns(rows, base)
		if err != nil {
			return nil, badInput(path, "table %s: %v", resultio.WorkloadTable, err)
		}
		runs = append(runs, wr...)
	}
	if tables[resultio.SweepTable] {
		if err := checkColumns(ctx, path, resultio.SweepTable, resultio.ResultColumns); err != nil {
			return nil, badInput(path, "%v", err)
		}
		rows, err := history.ReadRows(ctx, path, resultio.SweepTable)
		if err != nil {
			return nil, badInput(path, "%v", err)
		}
		sweep := make([]results.SweepResult, 0, len(rows))
		var errs []string
		for i, m := range rows {
			c := cells{m: m}
			sweep = append(sweep, sweepRow(&c))
			if len(c.errs) > 0 {
				errs = append(errs, fmt.Sprintf("row %d: %s", i+1, strings.Join(c.errs, "; ")))
			}
		}
		if len(errs) > 0 {
			return nil, badInput(path, "table %s: %s", resultio.SweepTable, strings.Join(firstN(errs, 5), "\n"))
		}
		runs = append(runs, groupSweep(sweep, base, true)...)
	}
	if len(runs) == 0 {
		return nil, badInput(path, "no rows in tables %s or %s", resultio.WorkloadTable, resultio.SweepTable)
	}
	return runs, nil
}

// checkColumns refuses a table that lacks a column of want (a table of
// that name that is not a benchserve or reference history), naming what
// is missing.
func checkColumns(ctx context.Context, path, table string, want []string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	rs, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return fmt.Errorf("table %s: columns: %w", table, err)
	}
	defer rs.Close()
	have := map[string]bool{}
	for rs.Next() {
		var name string
		if err := rs.Scan(&name); err != nil {
			return fmt.Errorf("table %s: columns: %w", table, err)
		}
		have[name] = true
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("table %s: columns: %w", table, err)
	}
	var missing []string
	for _, c := range want {
		if !have[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("table %s is not a benchserve history: it lacks the column(s) %s (of the %d a history has)", table, strings.Join(missing, ", "), len(want))
	}
	return nil
}

// firstN returns the first n of ss, and a count of the rest.
func firstN(ss []string, n int) []string {
	if len(ss) <= n {
		return ss
	}
	return append(ss[:n:n], fmt.Sprintf("and %d more rows", len(ss)-n))
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
// rows (the reference's bench_serve_workload columns). A cell that does
// not read as its column's type (a non-numeric latency) is an error
// naming the row and the column, never a 0.
func workloadRuns(rows []map[string]any, base string) ([]Run, error) {
	var order []string
	by := map[string][]results.Record{}
	var errs []string
	for i, m := range rows {
		c := cells{m: m}
		rec := workloadRecord(&c)
		if len(c.errs) > 0 {
			errs = append(errs, fmt.Sprintf("row %d: %s", i+1, strings.Join(c.errs, "; ")))
			continue
		}
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
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(firstN(errs, 5), "\n"))
	}
	return runs, nil
}

func workloadRecord(c *cells) results.Record {
	var tags []string
	if s := c.str("tags"); s != "" {
		tags = strings.Split(s, ",")
	}
	var issues []string
	_ = json.Unmarshal([]byte(c.str("quality_issues")), &issues)
	if issues == nil {
		issues = []string{}
	}
	var extra map[string]any
	_ = json.Unmarshal([]byte(c.str("request_extra_body")), &extra)
	model := c.str("model_id")
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
		RunID: c.str("run_id"), Timestamp: c.str("timestamp"), Workload: c.str("workload"),
		CaseID: c.str("case_id"), Repetition: c.integer("repetition"), Tags: tags, ModelID: model,
		Runtime: results.Runtime{ModelID: model, EngineType: c.str("engine_type"), ModelType: c.str("model_type"),
			MTPEnabled: c.boolean("mtp_enabled"), SpecPrefill: c.boolean("specprefill"),
			KVQuant: c.str("kv_quant"), CacheType: c.str("cache_type")},
		Hardware: results.Hardware{Chip: c.str("chip"), MemoryGB: c.float("memory_gb"), OSVersion: c.str("os_version")},
		Request: results.RequestInfo{MaxTokens: c.integer("request_max_tokens"),
			EnableThinking: c.optBool("request_enable_thinking"), ExtraBody: extra},
		Policy: results.Policy{TimeoutMS: c.optFloat("policy_timeout_ms"), WithinTimeout: c.optBool("within_policy_timeout")},
		Metrics: results.Metrics{
			TTFTms: c.measured("ttft_ms"), TPOTms: c.nullable("tpot_ms"), E2ELms: c.measured("e2e_latency_ms"),
			GenTPS: c.nullable("gen_tps"), PromptTPS: c.float("prompt_tps"),
			PromptTokens: c.integer("prompt_tokens"), CompletionTokens: c.integer("completion_tokens"),
			CacheHits: c.optInt64("cache_hits"), CacheMisses: c.optInt64("cache_misses"), TokensSaved: c.optInt64("tokens_saved"),
			Metal: results.Metal{Model: model, MetalActiveGB: c.float("metal_active_gb"), MetalPeakGB: c.float("metal_peak_gb"),
				MetalCacheGB: c.float("metal_cache_gb"), CacheType: c.str("cache_type")},
		},
		Quality: results.Quality{OK: c.boolean("quality_ok"), Issues: issues, FinishReason: c.optString("finish_reason"),
			ContentChars: c.integer("content_chars"), ContentPreview: c.str("content_preview")},
		OK:    c.boolean("quality_ok"),
		Error: errText,
	}
	return rec
}

func sweepRow(c *cells) results.SweepResult {
	return results.SweepResult{
		RunID: c.str("run_id"), Timestamp: c.str("timestamp"), Tag: c.str("tag"), Chip: c.str("chip"),
		GPUCores: c.integer("gpu_cores"), MemoryGB: c.float("memory_gb"), BandwidthGBs: c.float("bandwidth_gbs"),
		OSVersion: c.str("os_version"), ModelID: c.str("model_id"), ModelType: c.str("model_type"),
		EngineType: c.str("engine_type"), MTPEnabled: c.boolean("mtp_enabled"), SpecPrefill: c.boolean("specprefill"),
		KVQuant: c.str("kv_quant"), CacheType: c.str("cache_type"), PromptSet: c.str("prompt_set"),
		Concurrency: c.integer("concurrency"), MaxTokens: c.integer("max_tokens"),
		EnableThinking: c.optBool("enable_thinking"), ExtraBody: c.str("extra_body"),
		Repetition: c.integer("repetition"), PromptTokens: c.integer("prompt_tokens"),
		TTFTms: c.float("ttft_ms"), TPOTms: c.float("tpot_ms"), E2ELms: c.float("e2e_latency_ms"),
		GenTPS: c.float("gen_tps"), PromptTPS: c.float("prompt_tps"), ThroughputTPS: c.float("throughput_tps"),
		RequestsPerS: c.float("requests_per_s"), MetalActiveGB: c.float("metal_active_gb"),
		MetalPeakGB: c.float("metal_peak_gb"), MetalCacheGB: c.float("metal_cache_gb"),
		CacheHits: c.integer("cache_hits"), CacheMisses: c.integer("cache_misses"),
		CacheHitRate: c.float("cache_hit_rate"), TokensSaved: c.integer("tokens_saved"),
		Validated: c.boolean("validated"),
	}
}

// cells reads one row's cells as what the SQLite driver returns (int64,
// float64, string, []byte, nil) and records, in errs, every cell that
// does not read as its column's type, naming the column: a cell that is
// not a number is an error, not a 0.
type cells struct {
	m    map[string]any
	errs []string
}

func (c *cells) bad(col string, v any, want string) {
	c.errs = append(c.errs, fmt.Sprintf("column %s: %s, not %s", col, describeCell(v), want))
}

func describeCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return strconv.Quote(string(x))
	case string:
		return strconv.Quote(x)
	}
	return fmt.Sprint(v)
}

func (c *cells) str(col string) string {
	switch x := c.m[col].(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// number reads a numeric cell; ok false (and an error recorded) for
// anything else, NULL included.
func (c *cells) number(col string) (float64, bool) {
	switch x := c.m[col].(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case string, []byte:
		if f, err := strconv.ParseFloat(strings.TrimSpace(c.str(col)), 64); err == nil {
			return f, true
		}
	}
	c.bad(col, c.m[col], "a number")
	return 0, false
}

// float reads a REAL column; NULL (NaN when written) is NaN, not a 0.
func (c *cells) float(col string) float64 {
	if c.m[col] == nil {
		return math.NaN()
	}
	f, _ := c.number(col)
	return f
}

// measured reads a latency: a number, NULL included as an error (a
// history row always has one).
func (c *cells) measured(col string) float64 {
	f, _ := c.number(col)
	return f
}

// nullable is a REAL column whose NULL means "not measured" (a rate the
// timing could not support): NaN, as in the record, never 0.
func (c *cells) nullable(col string) float64 {
	if c.m[col] == nil {
		return math.NaN()
	}
	return c.float(col)
}

func (c *cells) integer(col string) int {
	if c.m[col] == nil {
		return 0 // a count the row does not have
	}
	f, ok := c.number(col)
	if ok && f != math.Trunc(f) {
		c.bad(col, c.m[col], "a whole number")
	}
	return int(f)
}

func (c *cells) boolean(col string) bool {
	switch x := c.m[col].(type) {
	case nil:
		return false
	case int64:
		return x != 0
	case float64:
		return x != 0
	case bool:
		return x
	case string, []byte:
		switch strings.ToLower(strings.TrimSpace(c.str(col))) {
		case "1", "true":
			return true
		case "0", "false", "":
			return false
		}
	}
	c.bad(col, c.m[col], "a boolean")
	return false
}

func (c *cells) optBool(col string) *bool {
	if c.m[col] == nil {
		return nil
	}
	b := c.boolean(col)
	return &b
}

func (c *cells) optFloat(col string) *float64 {
	if c.m[col] == nil {
		return nil
	}
	f := c.float(col)
	return &f
}

func (c *cells) optInt64(col string) *int64 {
	if c.m[col] == nil {
		return nil
	}
	i := int64(c.integer(col))
	return &i
}

func (c *cells) optString(col string) *string {
	if c.m[col] == nil {
		return nil
	}
	s := c.str(col)
	return &s
}
