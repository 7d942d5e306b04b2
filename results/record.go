package results

import "github.com/benchserve/benchserve/openai"

// Runtime describes the server under test (reference: auto_detect_runtime).
// Missing endpoints leave fields at their zero values.
type Runtime struct {
	ModelID       string  `json:"model_id"`
	ModelType     string  `json:"model_type"`
	EngineType    string  `json:"engine_type"`
	MTPEnabled    bool    `json:"mtp_enabled"`
	SpecPrefill   bool    `json:"specprefill"`
	KVQuant       string  `json:"kv_quant"`
	CacheType     string  `json:"cache_type"`
	MetalActiveGB float64 `json:"metal_active_gb"`
	MetalPeakGB   float64 `json:"metal_peak_gb"`
	MetalCacheGB  float64 `json:"metal_cache_gb"`
	// Server is benchserve's guess of the server software ("vllm-mlx",
	// "vllm", "llama.cpp", "ollama", "benchserve-fixture", or ""). Addition.
	Server string `json:"server,omitempty"`
}

// Hardware is the client machine's fingerprint (reference:
// detect_hardware_fingerprint). MemoryGB is in GiB.
type Hardware struct {
	Chip         string  `json:"chip"`
	GPUCores     int     `json:"gpu_cores"`
	MemoryGB     float64 `json:"memory_gb"`
	BandwidthGBs float64 `json:"bandwidth_gbs"`
	OSVersion    string  `json:"os_version"`
}

// RequestInfo echoes what was sent for a case.
type RequestInfo struct {
	MaxTokens      int            `json:"max_tokens"`
	RequestPath    *string        `json:"request_path"`
	EnableThinking *bool          `json:"enable_thinking"`
	ExtraBody      map[string]any `json:"extra_body"`
	MessageCount   int            `json:"message_count"`
}

// Policy is the case's policy timeout and its outcome. WithinTimeout is nil
// when no timeout was configured, false when the request errored or ran
// over, true otherwise (reference: _compute_within_policy_timeout).
type Policy struct {
	TimeoutMS     *float64 `json:"timeout_ms"`
	WithinTimeout *bool    `json:"within_timeout"`
}

// CacheReset is the outcome of DELETE /v1/cache (reference:
// clear_runtime_cache). When no reset was attempted only Attempted=false is
// written.
type CacheReset struct {
	Attempted  bool           `json:"attempted"`
	OK         *bool          `json:"ok,omitempty"`
	StatusCode *int           `json:"status_code,omitempty"`
	Response   map[string]any `json:"response,omitempty"`
	Error      *string        `json:"error,omitempty"`
}

// Metal is the post-case /v1/status memory snapshot (reference:
// parse_status_response), in GB.
type Metal struct {
	Model         string  `json:"model"`
	MetalActiveGB float64 `json:"metal_active_gb"`
	MetalPeakGB   float64 `json:"metal_peak_gb"`
	MetalCacheGB  float64 `json:"metal_cache_gb"`
	CacheType     string  `json:"cache_type"`
}

// Metrics are one request's measurements. Times in ms, rates in tokens/s.
// Cache fields are deltas of the server's prefix-cache counters across the
// case; they are null (not 0) when the server exposes no such counter,
// which is where benchserve departs from the reference's silent 0.
type Metrics struct {
	TTFTms           float64 `json:"ttft_ms"`
	TPOTms           float64 `json:"tpot_ms"`
	E2ELms           float64 `json:"e2e_latency_ms"`
	GenTPS           float64 `json:"gen_tps"`
	PromptTPS        float64 `json:"prompt_tps"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CacheHits        *int64  `json:"cache_hits"`
	CacheMisses      *int64  `json:"cache_misses"`
	TokensSaved      *int64  `json:"tokens_saved"`
	Metal            Metal   `json:"metal"`
	// Additions (never renames) beyond the reference payload:
	TTFOms       *float64  `json:"ttfo_ms"`
	ITLms        []float64 `json:"itl_ms"`
	UsagePresent bool      `json:"usage_present"`
	TokenChunks  int       `json:"token_chunks"`
	CacheDialect string    `json:"cache_dialect,omitempty"`
}

// Quality is the outcome of the case's checks.
type Quality struct {
	OK             bool     `json:"ok"`
	Issues         []string `json:"issues"`
	FinishReason   *string  `json:"finish_reason"`
	ContentChars   int      `json:"content_chars"`
	ContentPreview string   `json:"content_preview"`
	// Content is the whole content, only with include_content.
	Content *string `json:"content,omitempty"`
	// ContentTruncated reports that the client kept only the first part
	// of an oversized answer (stream.Client.MaxContentBytes), so
	// ContentChars counts the kept part. Addition.
	ContentTruncated bool `json:"content_truncated,omitempty"`
}

// ToolCallsSummary summarizes streamed tool calls; nil when none.
type ToolCallsSummary struct {
	Count int               `json:"count"`
	Names []string          `json:"names"`
	Raw   []openai.ToolCall `json:"raw"`
}

// Record is one case × repetition result (reference:
// _build_workload_record). Field order and JSON keys follow the reference;
// Error is an addition.
type Record struct {
	RunID      string            `json:"run_id"`
	Timestamp  string            `json:"timestamp"`
	StartedAt  string            `json:"started_at"`
	Workload   string            `json:"workload"`
	CaseID     string            `json:"case_id"`
	Repetition int               `json:"repetition"`
	Tags       []string          `json:"tags"`
	ModelID    string            `json:"model_id"`
	Runtime    Runtime           `json:"runtime"`
	Hardware   Hardware          `json:"hardware"`
	Request    RequestInfo       `json:"request"`
	Policy     Policy            `json:"policy"`
	CacheReset CacheReset        `json:"cache_reset"`
	Metrics    Metrics           `json:"metrics"`
	Quality    Quality           `json:"quality"`
	ToolCalls  *ToolCallsSummary `json:"tool_calls"`
	OK         bool              `json:"ok"`
	// Error is the request error ("" when the request succeeded). Addition.
	Error string `json:"error,omitempty"`
}

// WorkloadInfo is the payload's "workload" block.
type WorkloadInfo struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Path        string         `json:"path"`
	Defaults    map[string]any `json:"defaults"`
	Repetitions int            `json:"repetitions"`
}

// Transport is the payload's "transport" block. RequestTimeoutS is nil
// when no transport timeout applied.
type Transport struct {
	RequestTimeoutS *float64 `json:"request_timeout_s"`
	Note            string   `json:"note"`
}

// PolicyNote is the payload's "policy" block.
type PolicyNote struct {
	Note string `json:"note"`
}

// CacheEvent is one cache reset made under the run's cache policy.
// CaseID and Repetition are set for "before-case" events only.
type CacheEvent struct {
	Scope      string     `json:"scope"`
	CaseID     *string    `json:"case_id,omitempty"`
	Repetition *int       `json:"repetition,omitempty"`
	Event      CacheReset `json:"event"`
}

// CachePolicy is the payload's "cache_policy" block.
type CachePolicy struct {
	Mode   string       `json:"mode"`
	Events []CacheEvent `json:"events"`
}

// Payload is the whole workload results document (reference:
// run_bench_serve_workload's payload).
type Payload struct {
	RunID       string       `json:"run_id"`
	Timestamp   string       `json:"timestamp"`
	Workload    WorkloadInfo `json:"workload"`
	Transport   Transport    `json:"transport"`
	Policy      PolicyNote   `json:"policy"`
	CachePolicy CachePolicy  `json:"cache_policy"`
	Summary     RunSummary   `json:"summary"`
	Results     []Record     `json:"results"`
	// SLO holds the run-level thresholds checked after the run (the
	// workload's defaults.slo and the caller's), in order; omitted when
	// none were given. Addition.
	SLO []SLOResult `json:"slo,omitempty"`
}

// SLOResult is one run-level threshold and its outcome. Measured is nil
// when the run had no sample for the metric (which fails the threshold).
type SLOResult struct {
	Threshold string   `json:"threshold"`
	Measured  *float64 `json:"measured"`
	Pass      bool     `json:"pass"`
}

// Stats are summary statistics of one metric (reference:
// compute_summary_stats): sample standard deviation, percentiles by linear
// interpolation between closest ranks.
type Stats struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	P50    float64 `json:"p50"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
}

// CaseSummary is one entry of RunSummary.CaseSummaries (reference:
// _summarize_case). Stats pointers are nil (JSON {}) when there are no
// samples... see MarshalJSON in summary.go.
type CaseSummary struct {
	SampleCount               int     `json:"sample_count"`
	Repetitions               []int   `json:"repetitions"`
	Passed                    bool    `json:"passed"`
	FailureCount              int     `json:"failure_count"`
	FailureRate               float64 `json:"failure_rate"`
	PolicyTimeoutPassed       *bool   `json:"policy_timeout_passed"`
	PolicyTimeoutFailureCount *int    `json:"policy_timeout_failure_count"`
	LatencyMS                 *Stats  `json:"latency_ms"`
	TTFTms                    *Stats  `json:"ttft_ms"`
	GenTPS                    *Stats  `json:"gen_tps"`
	ContentChars              *Stats  `json:"content_chars"`
}

// RunSummary is the payload's "summary" block (reference:
// summarize_workload_results).
type RunSummary struct {
	CaseCount                 int                    `json:"case_count"`
	UniqueCaseCount           int                    `json:"unique_case_count"`
	RepetitionCount           int                    `json:"repetition_count"`
	Passed                    bool                   `json:"passed"`
	FailureCount              int                    `json:"failure_count"`
	FailureRate               float64                `json:"failure_rate"`
	QualityPassed             bool                   `json:"quality_passed"`
	QualityFailureCount       int                    `json:"quality_failure_count"`
	PolicyTimeoutPassed       *bool                  `json:"policy_timeout_passed"`
	PolicyTimeoutFailureCount *int                   `json:"policy_timeout_failure_count"`
	LatencyMS                 *Stats                 `json:"latency_ms"`
	TTFTms                    *Stats                 `json:"ttft_ms"`
	GenTPS                    *Stats                 `json:"gen_tps"`
	CaseSummaries             map[string]CaseSummary `json:"case_summaries"`
}
