package resultio

// WorkloadResultColumns are the workload row columns of csv, sql and sqlite,
// in order (reference: WORKLOAD_RESULT_COLUMNS). RecordRow returns values in
// this order. Do not modify.
var WorkloadResultColumns = []string{
	"run_id", "timestamp", "workload", "case_id", "repetition", "tags", "model_id",
	"chip", "memory_gb", "os_version", "engine_type", "model_type", "mtp_enabled",
	"specprefill", "kv_quant", "cache_type", "request_max_tokens",
	"request_enable_thinking", "request_extra_body", "policy_timeout_ms",
	"within_policy_timeout", "ttft_ms", "tpot_ms", "e2e_latency_ms", "gen_tps",
	"prompt_tps", "prompt_tokens", "completion_tokens", "cache_hits", "cache_misses",
	"tokens_saved", "metal_active_gb", "metal_peak_gb", "metal_cache_gb", "quality_ok",
	"quality_issues", "finish_reason", "content_chars", "content_preview",
}

// WorkloadTableColumns are the columns FormatTable shows (reference:
// _WORKLOAD_TABLE_COLUMNS). Do not modify.
var WorkloadTableColumns = []string{
	"case_id", "repetition", "tags", "quality_ok", "within_policy_timeout", "ttft_ms",
	"gen_tps", "e2e_latency_ms", "cache_hits", "tokens_saved", "finish_reason",
}

// WorkloadTable is the SQL table the workload rows go to (sql and sqlite).
const WorkloadTable = "bench_serve_workload"

// WorkloadSQLSchema is the column definition list of WorkloadTable
// (reference: _WORKLOAD_SQL_SCHEMA), used inside CREATE TABLE IF NOT EXISTS.
const WorkloadSQLSchema = "run_id TEXT, timestamp TEXT, workload TEXT, case_id TEXT, repetition INTEGER, tags TEXT, model_id TEXT, chip TEXT, memory_gb REAL, os_version TEXT, engine_type TEXT, model_type TEXT, mtp_enabled BOOLEAN, specprefill BOOLEAN, kv_quant TEXT, cache_type TEXT, request_max_tokens INTEGER, request_enable_thinking BOOLEAN, request_extra_body TEXT, policy_timeout_ms INTEGER, within_policy_timeout BOOLEAN, ttft_ms REAL, tpot_ms REAL, e2e_latency_ms REAL, gen_tps REAL, prompt_tps REAL, prompt_tokens INTEGER, completion_tokens INTEGER, cache_hits INTEGER, cache_misses INTEGER, tokens_saved INTEGER, metal_active_gb REAL, metal_peak_gb REAL, metal_cache_gb REAL, quality_ok BOOLEAN, quality_issues TEXT, finish_reason TEXT, content_chars INTEGER, content_preview TEXT"

// ResultColumns are the sweep row columns of json, csv, sql and sqlite, in
// SweepResult field order (reference: RESULT_COLUMNS, the BenchServeResult
// dataclass fields). Do not modify.
var ResultColumns = []string{
	"run_id", "timestamp", "tag", "chip", "gpu_cores", "memory_gb", "bandwidth_gbs",
	"os_version", "model_id", "model_type", "engine_type", "mtp_enabled", "specprefill",
	"kv_quant", "cache_type", "prompt_set", "concurrency", "max_tokens",
	"enable_thinking", "extra_body", "repetition", "prompt_tokens", "ttft_ms",
	"tpot_ms", "e2e_latency_ms", "gen_tps", "prompt_tps", "throughput_tps",
	"requests_per_s", "metal_active_gb", "metal_peak_gb", "metal_cache_gb",
	"cache_hits", "cache_misses", "cache_hit_rate", "tokens_saved", "validated",
}

// TableColumns are the columns FormatSweepTable shows (reference:
// _TABLE_COLUMNS). Do not modify.
var TableColumns = []string{
	"prompt_set", "concurrency", "prompt_tokens", "ttft_ms", "tpot_ms", "gen_tps",
	"prompt_tps", "e2e_latency_ms", "validated",
}

// SweepTable is the SQL table the sweep rows go to (sql and sqlite).
const SweepTable = "bench_serve"

// SQLSchema is the column definition list of SweepTable (reference:
// _SQL_SCHEMA).
const SQLSchema = "run_id TEXT, timestamp TEXT, tag TEXT, chip TEXT, gpu_cores INTEGER, memory_gb REAL, bandwidth_gbs REAL, os_version TEXT, model_id TEXT, model_type TEXT, engine_type TEXT, mtp_enabled BOOLEAN, specprefill BOOLEAN, kv_quant TEXT, cache_type TEXT, prompt_set TEXT, concurrency INTEGER, max_tokens INTEGER, enable_thinking BOOLEAN, extra_body TEXT, repetition INTEGER, prompt_tokens INTEGER, ttft_ms REAL, tpot_ms REAL, e2e_latency_ms REAL, gen_tps REAL, prompt_tps REAL, throughput_tps REAL, requests_per_s REAL, metal_active_gb REAL, metal_peak_gb REAL, metal_cache_gb REAL, cache_hits INTEGER, cache_misses INTEGER, cache_hit_rate REAL, tokens_saved INTEGER, validated BOOLEAN"
