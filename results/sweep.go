package results

// SweepResult is one prompt-sweep configuration's aggregated result
// (reference: the BenchServeResult dataclass), field for field in
// ResultColumns order; JSON keys are the column names. Times in ms, rates
// in tokens/s (requests_per_s in requests/s), memory in GB. Use
// NewSweepResult for the reference's defaults.
type SweepResult struct {
	// RunID is the sweep's 8-hex-digit id, shared by its rows.
	RunID string `json:"run_id"`
	// Timestamp is the sweep's start, ISO 8601 UTC.
	Timestamp string `json:"timestamp"`
	// Tag is the user's label for the sweep (--tag).
	Tag string `json:"tag"`
	// Chip, GPUCores, MemoryGB (GiB), BandwidthGBs (GB/s) and OSVersion are the
	// client's Hardware fingerprint.
	Chip         string  `json:"chip"`
	GPUCores     int     `json:"gpu_cores"`
	MemoryGB     float64 `json:"memory_gb"`
	BandwidthGBs float64 `json:"bandwidth_gbs"`
	OSVersion    string  `json:"os_version"`
	// ModelID is the model requested; ModelType through CacheType are the
	// server's Runtime.
	ModelID     string `json:"model_id"`
	ModelType   string `json:"model_type"`
	EngineType  string `json:"engine_type"`
	MTPEnabled  bool   `json:"mtp_enabled"`
	SpecPrefill bool   `json:"specprefill"`
	KVQuant     string `json:"kv_quant"`
	CacheType   string `json:"cache_type"`
	// PromptSet is the prompt set's name or file.
	PromptSet string `json:"prompt_set"`
	// Concurrency is how many requests were sent at once.
	Concurrency int `json:"concurrency"`
	// MaxTokens is the max_tokens sent, in tokens.
	MaxTokens int `json:"max_tokens"`
	// EnableThinking is the enable_thinking sent, null when not sent.
	EnableThinking *bool `json:"enable_thinking"`
	// ExtraBody is the extra body's JSON text as given, "" when none.
	ExtraBody string `json:"extra_body"`
	// Repetition is 0-based.
	Repetition int `json:"repetition"`
	// PromptTokens is the prompt set's first prompt in tokens (preflight count,
	// else the first request's usage).
	PromptTokens int `json:"prompt_tokens"`
	// TTFTms, TPOTms and E2ELms are means over the non-errored requests, in ms.
	TTFTms float64 `json:"ttft_ms"`
	TPOTms float64 `json:"tpot_ms"`
	E2ELms float64 `json:"e2e_latency_ms"`
	// GenTPS and PromptTPS are means over the non-errored requests, in tokens/s.
	GenTPS    float64 `json:"gen_tps"`
	PromptTPS float64 `json:"prompt_tps"`
	// ThroughputTPS is total completion tokens / slowest e2e, in tokens/s.
	ThroughputTPS float64 `json:"throughput_tps"`
	// RequestsPerS is Concurrency / slowest e2e, in requests/s.
	RequestsPerS float64 `json:"requests_per_s"`
	// MetalActiveGB, MetalPeakGB and MetalCacheGB are /v1/status's memory after
	// the run, in GB as the server reports it.
	MetalActiveGB float64 `json:"metal_active_gb"`
	MetalPeakGB   float64 `json:"metal_peak_gb"`
	MetalCacheGB  float64 `json:"metal_cache_gb"`
	// CacheHits and CacheMisses are counter deltas over the run, 0 when
	// unavailable.
	CacheHits   int `json:"cache_hits"`
	CacheMisses int `json:"cache_misses"`
	// CacheHitRate is CacheHits / (CacheHits + CacheMisses), 0 without events.
	CacheHitRate float64 `json:"cache_hit_rate"`
	// TokensSaved is the delta of tokens served from the prefix cache, 0 when
	// unavailable.
	TokensSaved int `json:"tokens_saved"`
	// Validated is true when every non-errored response passed validation; false
	// when all errored.
	Validated bool `json:"validated"`
	// RequestRate is the open-loop arrival rate of a sweep point run at a
	// rate (--request-rate in a prompt sweep), in requests per second;
	// omitted for the reference's closed-loop rounds. Not a CSV/SQL
	// column (histories keep the reference's schema). Addition.
	RequestRate *float64 `json:"request_rate,omitempty"`
}

// NewSweepResult returns a SweepResult with the reference dataclass
// defaults: Concurrency 1, MaxTokens 256, Validated true, the rest zero
// (EnableThinking nil).
func NewSweepResult() SweepResult {
	return SweepResult{Concurrency: 1, MaxTokens: DefaultMaxTokens, Validated: true}
}
