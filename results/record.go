package results

import (
	"encoding/json"
)

// Runtime describes the server under test (reference: auto_detect_runtime).
// Missing endpoints leave fields at their zero values.
type Runtime struct {
	// ModelID is the first model id listed by GET /v1/models (reference key
	// model_id).
	ModelID string `json:"model_id"`
	// ModelType is /health's model_type (reference key model_type).
	ModelType string `json:"model_type"`
	// EngineType is /v1/status's engine_type (reference key engine_type).
	EngineType string `json:"engine_type"`
	// MTPEnabled is /v1/status's mtp_enabled, as Python's bool() (reference key
	// mtp_enabled).
	MTPEnabled bool `json:"mtp_enabled"`
	// SpecPrefill is /v1/status's specprefill, as Python's bool() (reference key
	// specprefill).
	SpecPrefill bool `json:"specprefill"`
	// KVQuant is /v1/status's kv_quant, "" when unset (reference key kv_quant).
	KVQuant string `json:"kv_quant"`
	// CacheType is /v1/status's cache.type (reference key cache_type).
	CacheType string `json:"cache_type"`
	// MetalActiveGB is the server's Metal active memory in GB, as /v1/status
	// reports it (metal.active_memory_gb or metal.active_gb) at detection
	// (reference key metal_active_gb).
	MetalActiveGB float64 `json:"metal_active_gb"`
	// MetalPeakGB is the server's Metal peak memory in GB from /v1/status
	// (reference key metal_peak_gb).
	MetalPeakGB float64 `json:"metal_peak_gb"`
	// MetalCacheGB is the server's Metal cache memory in GB from /v1/status
	// (reference key metal_cache_gb).
	MetalCacheGB float64 `json:"metal_cache_gb"`
	// Server is benchserve's guess of the server software ("vllm-mlx",
	// "vllm", "llama.cpp", "ollama", "benchserve-fixture", or ""). Addition.
	Server string `json:"server,omitempty"`
}

// Hardware is the client machine's fingerprint (reference:
// detect_hardware_fingerprint). MemoryGB is in GiB.
type Hardware struct {
	// Chip is the chip name (on Linux the CPU model name from /proc/cpuinfo;
	// reference key chip).
	Chip string `json:"chip"`
	// GPUCores is the GPU core count, 0 when unknown (reference key gpu_cores).
	GPUCores int `json:"gpu_cores"`
	// MemoryGB is the total RAM in GiB (on Linux MemTotal of /proc/meminfo,
	// kB / 1024²; reference key memory_gb).
	MemoryGB float64 `json:"memory_gb"`
	// BandwidthGBs is the memory bandwidth in GB/s, 0 when unknown (reference
	// key bandwidth_gbs).
	BandwidthGBs float64 `json:"bandwidth_gbs"`
	// OSVersion reads like Python's platform.platform(), e.g.
	// "Linux-6.1.0-18-amd64-x86_64" (reference key os_version).
	OSVersion string `json:"os_version"`
}

// RequestInfo echoes what was sent for a case.
type RequestInfo struct {
	// MaxTokens is the effective max_tokens sent, in tokens (case, else workload
	// default, else 256).
	MaxTokens int `json:"max_tokens"`
	// RequestPath is the file the case's request was loaded from, null when
	// inline.
	RequestPath *string `json:"request_path"`
	// EnableThinking is the case's enable_thinking, null when unset.
	EnableThinking *bool `json:"enable_thinking"`
	// ExtraBody is the case's extra body merged into the request, {} when none.
	ExtraBody map[string]any `json:"extra_body" ordered:"ExtraBodyJSON"`
	// ExtraBodyJSON, when set, is ExtraBody as JSON in the reference's key
	// order (workloads.Case.ExtraBodyJSON); the results writers render it in
	// place of ExtraBody. Not decoded from payload files.
	ExtraBodyJSON json.RawMessage `json:"-"`
	// MessageCount is the number of messages sent.
	MessageCount int `json:"message_count"`
	// Endpoint is the API the request went to ("responses",
	// "completions", "embeddings"; workloads.Endpoint), omitted for chat
	// completions so chat records stay the reference's. Addition.
	Endpoint string `json:"endpoint,omitempty"`
	// Inputs is an embeddings request's batch size (the inputs embedded
	// in one request), omitted for other endpoints. Addition.
	Inputs int `json:"inputs,omitempty"`
	// ID is the X-Request-Id the request was sent with, unique per
	// request; ServerID the server's own id for it: its X-Request-Id
	// response header, else the chunks' "id". Both join a record to the
	// server's logs and traces; omitted when unknown. Addition.
	ID       string `json:"id,omitempty"`
	ServerID string `json:"server_id,omitempty"`
}

// Policy is the case's policy timeout and its outcome. WithinTimeout is nil
// when no timeout was configured, false when the request errored or ran
// over, true otherwise (reference: _compute_within_policy_timeout).
type Policy struct {
	// TimeoutMS is the case's policy_timeout_ms in milliseconds, null when none.
	TimeoutMS *float64 `json:"timeout_ms"`
	// WithinTimeout is the outcome described above (reference key
	// within_timeout).
	WithinTimeout *bool `json:"within_timeout"`
}

// CacheReset is the outcome of DELETE /v1/cache (reference:
// clear_runtime_cache). When no reset was attempted only Attempted=false is
// written.
type CacheReset struct {
	// Attempted reports whether DELETE /v1/cache was sent.
	Attempted bool `json:"attempted"`
	// OK is true for a 2xx answer.
	OK *bool `json:"ok,omitempty"`
	// StatusCode is the HTTP status, 0 when no answer came.
	StatusCode *int `json:"status_code,omitempty"`
	// Response is the decoded JSON answer, or {"text": body} when it was not
	// JSON.
	Response map[string]any `json:"response,omitempty"`
	// Error is the transport error or "DELETE /v1/cache: HTTP <code>", "" on
	// success.
	Error *string `json:"error,omitempty"`
}

// Metal is the post-case /v1/status memory snapshot (reference:
// parse_status_response), in GB.
type Metal struct {
	// Model is /v1/status's model (reference key model).
	Model string `json:"model"`
	// MetalActiveGB is metal.active_memory_gb or metal.active_gb, in GB as the
	// server reports it.
	MetalActiveGB float64 `json:"metal_active_gb"`
	// MetalPeakGB is metal.peak_memory_gb or metal.peak_gb, in GB.
	MetalPeakGB float64 `json:"metal_peak_gb"`
	// MetalCacheGB is metal.cache_memory_gb or metal.cache_gb, in GB.
	MetalCacheGB float64 `json:"metal_cache_gb"`
	// CacheType is cache.type.
	CacheType string `json:"cache_type"`
}

// Metrics are one request's measurements. Times in ms, rates in tokens/s.
// Cache fields are deltas of the server's prefix-cache counters across the
// case; they are null (not 0) when the server exposes no such counter,
// which is where benchserve departs from the reference's silent 0.
type Metrics struct {
	// TTFTms is the time to the first token (content, reasoning or tool call),
	// in ms.
	TTFTms float64 `json:"ttft_ms"`
	// TPOTms is the decode's time per output token, in ms: the span from
	// the first to the last token-bearing chunk divided by the tokens
	// produced in it (DecodeTokens, DecodeMethod). NaN (written
	// as null) when the decode was not timed: see DecodeTiming.
	TPOTms float64 `json:"tpot_ms"`
	// E2ELms is the end-to-end latency until the stream ended or failed, in ms.
	E2ELms float64 `json:"e2e_latency_ms"`
	// GenTPS is the decode rate, DecodeTokens / (last token − first
	// token), in tokens/s. NaN (written as null) when the decode was not
	// timed: see DecodeTiming.
	GenTPS float64 `json:"gen_tps"`
	// PromptTPS is prompt tokens / TTFT, in tokens/s.
	PromptTPS float64 `json:"prompt_tps"`
	// PromptTokens is usage.prompt_tokens, 0 without usage.
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens is usage.completion_tokens, else the token-bearing
	// chunks.
	CompletionTokens int `json:"completion_tokens"`
	// CacheHits is the prefix-cache hit counter's delta over the case; null when
	// unavailable.
	CacheHits *int64 `json:"cache_hits"`
	// CacheMisses is the miss counter's delta over the case; null when
	// unavailable.
	CacheMisses *int64 `json:"cache_misses"`
	// TokensSaved is the delta of tokens served from the cache over the case;
	// null when unavailable.
	TokensSaved *int64 `json:"tokens_saved"`
	// CachedTokens is the prompt tokens the server said it served from
	// its prefix cache for this request (usage.prompt_tokens_details.
	// cached_tokens), beside the /metrics deltas above; omitted when the
	// server did not say. Addition.
	CachedTokens *int `json:"cached_tokens,omitempty"`
	// Metal is the /v1/status memory snapshot taken after the case.
	Metal Metal `json:"metal"`
	// Additions (never renames) beyond the reference payload:
	//
	// TTFOms is the time to the first content or tool-call token, in ms;
	// null when none came.
	TTFOms *float64 `json:"ttfo_ms"`
	// ITLms are the gaps between consecutive token-bearing chunks, in ms:
	// the first ITLKept of ITLCount (at most 4096, so one
	// record stays bounded however long the stream ran); null when the
	// decode span was not observable (see DecodeTiming).
	ITLms NullableFloats `json:"itl_ms"`
	// ITLCount is the number of chunk gaps of the whole stream
	// (ITL summarizes them all) and ITLKept how many of them ITLms
	// holds; ITLKept < ITLCount says ITLms is the stream's beginning only.
	// Additions, omitted when 0.
	ITLCount int `json:"itl_count,omitempty"`
	ITLKept  int `json:"itl_kept,omitempty"`
	// ITL summarizes all ITLCount gaps, kept or not; omitted without
	// gaps. Addition.
	ITL *ITLStats `json:"itl,omitempty"`
	// UsagePresent reports whether the server sent a usage chunk.
	UsagePresent bool `json:"usage_present"`
	// TokenChunks counts the chunks that carried any token.
	TokenChunks int `json:"token_chunks"`
	// ConnectionRetries counts the times the request was sent again on a
	// fresh connection because the server had closed the kept-alive
	// connection it went out on before answering (a server that closes
	// connections after an answer or when idle, without "Connection:
	// close"); the request was not failed for it,
	// and the retry's time is part of its ttft_ms and e2e_latency_ms.
	// Omitted when 0. Addition.
	ConnectionRetries int `json:"connection_retries,omitempty"`
	// CacheDialect names the /metrics dialect the cache counters were read
	// in: "reference" (vllm_prefix_cache_*_total), "vllm-mlx"
	// (vllm_mlx_cache_*), "vllm" (vllm:prefix_cache_*) or "llamacpp".
	CacheDialect string `json:"cache_dialect,omitempty"`
	// DecodeTokens is the tokens produced between the first and the last
	// token-bearing chunk, over which tpot_ms and gen_tps are timed, and
	// DecodeMethod how they were counted: "usage" (per-chunk usage,
	// vLLM's continuous_usage_stats: exact), "one_per_chunk" (the
	// server's count equals the chunks: N − 1), "content" (the server's
	// N apportioned among the chunks by the word pieces of text each
	// carried: N·(P − P₁)/P, docs/streams.md says how) or "estimate"
	// (equal shares, N·(k − 1)/k for N tokens in k chunks, when the
	// chunks carried no text or there was no usage); both omitted when
	// the decode was not timed. Additions.
	DecodeTokens *float64 `json:"decode_tokens,omitempty"`
	DecodeMethod string   `json:"decode_method,omitempty"`
	// RefTPOTms and RefGenTPS are the reference's tpot_ms (the mean gap
	// between token-bearing chunks, in ms) and gen_tps (completion tokens
	// / (last − first), in tokens/s) for comparison with its records;
	// gen_tps overstates the decode rate by k/(k − 1) for k equal chunks.
	// omitted when there was no span to time (decode_timing no_tokens,
	// single_chunk, burst or batched). Additions.
	RefTPOTms *float64 `json:"ref_tpot_ms,omitempty"`
	RefGenTPS *float64 `json:"ref_gen_tps,omitempty"`
	// DecodeTiming is why tpot_ms, gen_tps and itl_ms are null: "no_tokens",
	// "single_chunk" (every token in one chunk), "burst" (every
	// token-bearing chunk within 1 ms, so the arrival
	// times measure the client's reads, not the server's decode),
	// "batched" (several tokens a chunk at over 20,000 tokens/s) or
	// "few_chunks" (fewer than 3 token-bearing chunks and no count of
	// their tokens); omitted when the decode was timed.
	DecodeTiming string `json:"decode_timing,omitempty"`
	// DecodeTimingNote says DecodeTiming for a person, e.g. "all 77 tokens
	// arrived in one chunk".
	DecodeTimingNote string `json:"decode_timing_note,omitempty"`
}

// ITLStats summarizes every chunk gap of one stream, in ms, kept in
// ITLms or not. Min, max and mean are exact;
// the percentiles are exact while every gap was kept and otherwise
// estimated (Estimated) within RelativeError of a gap at their rank.
type ITLStats struct {
	MinMS  float64 `json:"min_ms"`
	MaxMS  float64 `json:"max_ms"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	// Estimated reports that the percentiles come from the bounded
	// histogram (more gaps than were kept).
	Estimated bool `json:"estimated"`
	// RelativeError bounds the percentiles' relative error when
	// Estimated (about 0.0099: within 1% of a gap at the percentile's
	// rank), 0 when exact.
	RelativeError float64 `json:"relative_error"`
}

// NullableFloats is a list of numbers that is written as null, not [],
// when nil (the record's itl_ms when no gap could be measured).
type NullableFloats []float64

// Quality is the outcome of the case's checks.
type Quality struct {
	// OK is true when Issues is empty.
	OK bool `json:"ok"`
	// Issues are the failed checks' messages. When the request failed,
	// "request error: …" (the server's reason) comes first and every check
	// failure after it starts with "(because the request failed) " (the
	// reference put the request error last, after its consequences).
	Issues []string `json:"issues"`
	// FinishReason is the stream's finish_reason, null when none came.
	FinishReason *string `json:"finish_reason"`
	// ContentChars is the content's length in characters (code points).
	ContentChars int `json:"content_chars"`
	// ContentPreview is the content's first 240 characters.
	ContentPreview string `json:"content_preview"`
	// Content is the whole content, only with include_content.
	Content *string `json:"content,omitempty"`
	// ContentTruncated reports that the client kept only the first part
	// of an oversized answer (8 MiB of text by default), so
	// ContentChars counts the kept part. Addition.
	ContentTruncated bool `json:"content_truncated,omitempty"`
	// Additions for reasoning models, refusals and n > 1 (the reference
	// drops all of them):
	//
	// ReasoningChars is the reasoning's length in characters (code points,
	// like ContentChars), 0 when the model did not reason.
	ReasoningChars int `json:"reasoning_chars"`
	// ReasoningChunks counts the chunks that carried reasoning.
	ReasoningChunks int `json:"reasoning_chunks"`
	// ReasoningTokens is usage.completion_tokens_details.reasoning_tokens,
	// null when the server did not report it.
	ReasoningTokens *int `json:"reasoning_tokens"`
	// Reasoning is the whole reasoning, only with include_content (bounded
	// like Content).
	Reasoning *string `json:"reasoning,omitempty"`
	// Refusal is the model's refusal (delta.refusal), "" (omitted) when it
	// did not refuse.
	Refusal string `json:"refusal,omitempty"`
	// Notes are findings that are not failures, e.g. that the server
	// ignored enable_thinking=false and what it takes instead; omitted
	// when none.
	Notes []string `json:"notes,omitempty"`
	// Choices holds every choice of a stream that had several (a request
	// with n > 1), by index; omitted for a single choice, whose answer is
	// the fields above. Choice 0 is also the fields above.
	Choices []Choice `json:"choices,omitempty"`
}

// Choice is one choice of an n > 1 stream.
type Choice struct {
	// Index is choices[].index.
	Index int `json:"index"`
	// FinishReason is the choice's finish_reason, null when none came.
	FinishReason *string `json:"finish_reason"`
	// ContentChars and ReasoningChars are lengths in code points.
	ContentChars   int `json:"content_chars"`
	ReasoningChars int `json:"reasoning_chars"`
	// Refusal is the choice's refusal, omitted when none.
	Refusal string `json:"refusal,omitempty"`
	// ToolCalls summarizes the choice's tool calls, null when none.
	ToolCalls *ToolCallsSummary `json:"tool_calls"`
	// Content is the choice's content, only with include_content.
	Content *string `json:"content,omitempty"`
}

// ToolCallsSummary summarizes streamed tool calls; nil when none.
type ToolCallsSummary struct {
	// Count is the number of tool calls.
	Count int `json:"count"`
	// Names are the called functions' names, sorted.
	Names []string `json:"names"`
	// Raw are the merged tool calls in stream order.
	Raw []ToolCall `json:"raw"`
}

// Record is one case × repetition result (reference:
// _build_workload_record). Field order and JSON keys follow the reference;
// Error is an addition.
type Record struct {
	// RunID is the run's 8-hex-digit id.
	RunID string `json:"run_id"`
	// Timestamp is the run's start, ISO 8601 UTC as Python's isoformat()
	// writes it ("2006-01-02T15:04:05.000000+00:00").
	Timestamp string `json:"timestamp"`
	// StartedAt is when this request was sent, in the same format.
	StartedAt string `json:"started_at"`
	// Workload is the workload's name.
	Workload string `json:"workload"`
	CaseID   string `json:"case_id"`
	// Repetition is 0-based.
	Repetition int `json:"repetition"`
	// Tags are the case's tags, [] when none.
	Tags []string `json:"tags"`
	// ModelID is the model requested.
	ModelID    string      `json:"model_id"`
	Runtime    Runtime     `json:"runtime"`
	Hardware   Hardware    `json:"hardware"`
	Request    RequestInfo `json:"request"`
	Policy     Policy      `json:"policy"`
	CacheReset CacheReset  `json:"cache_reset"`
	Metrics    Metrics     `json:"metrics"`
	Quality    Quality     `json:"quality"`
	// ToolCalls is null when no tool call was streamed.
	ToolCalls *ToolCallsSummary `json:"tool_calls"`
	// OK equals Quality.OK.
	OK bool `json:"ok"`
	// Error is the request error ("" when the request succeeded). Addition.
	Error string `json:"error,omitempty"`
	// Interrupted reports that the run was stopped while this request was
	// in flight (MarkInterrupted): the record holds no measurement and
	// summaries leave it out. Addition; omitted when false.
	Interrupted bool `json:"interrupted,omitempty"`
	// Shard is the 0-based index of the shard (--shard I/N)
	// that sent this request in a run spread over several processes,
	// which share the RunID (--run-id); nil (omitted) in an unsharded
	// run. `benchserve merge` joins the shards' payloads. Addition.
	Shard *int `json:"shard,omitempty"`
	// EndedAt is when this request's stream ended (started_at +
	// e2e_latency_ms, in started_at's format), so a run's requests in
	// flight can be counted from its records. Addition; omitted when
	// unknown.
	EndedAt string `json:"ended_at,omitempty"`
	// LagMS is, in a load run on a schedule, how late the request was
	// sent: started_at minus the instant the schedule had it due, in ms.
	// Addition; omitted outside an open-loop run.
	LagMS *float64 `json:"lag_ms,omitempty"`
	// DueOffsetMS and SentOffsetMS are, in a load run on a schedule, when
	// the request was due and when it was sent, in ms from the schedule's
	// start (Schedule.StartedAt); TTFTFromScheduleMS and
	// E2ELFromScheduleMS are its TTFT and end-to-end latency counted from
	// when it was due (metrics.ttft_ms + lag_ms, metrics.e2e_latency_ms +
	// lag_ms): what a user arriving on time would have waited, so a client
	// that held requests back does not hide the wait (coordinated
	// omission). Additions; omitted outside an open-loop run, the TTFT
	// also when none was measured.
	DueOffsetMS        *float64 `json:"due_offset_ms,omitempty"`
	SentOffsetMS       *float64 `json:"sent_offset_ms,omitempty"`
	TTFTFromScheduleMS *float64 `json:"ttft_from_schedule_ms,omitempty"`
	E2ELFromScheduleMS *float64 `json:"e2el_from_schedule_ms,omitempty"`
	// Contract is the outcome of a protocol contract (a case with a
	// "protocol" object, workloads.Protocol); nil (omitted) for an
	// ordinary case. Addition.
	Contract *Contract `json:"contract,omitempty"`
	// Outcome is the request's one verdict (pass, capped, fail, error),
	// decided by the engine from the error and the case's checks; every
	// door reports it. Addition; omitted in payloads written before it
	// existed (then OK and Error say pass, fail or error).
	Outcome Outcome `json:"outcome,omitempty"`
	// ErrorKind says why a failed or errored request counts against the
	// run (KindQuality for a failed check, KindInterrupted for a stopped
	// run, else the request error's kind); "" (omitted) for pass and
	// capped. Addition.
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
	// Requested is what a generated request (a workload generator's, see
	// Generator) was built to have; nil (omitted) for a written case.
	// Addition.
	Requested *Requested `json:"requested,omitempty"`
}

// WorkloadInfo is the payload's "workload" block.
type WorkloadInfo struct {
	// Name is the workload's name.
	Name string `json:"name"`
	// Description is the workload's description, "" when none.
	Description string `json:"description"`
	// Path is the workload file's path as given, with a leading ~ expanded
	// (reference: str(Path(workload_path).expanduser())).
	Path string `json:"path"`
	// Defaults is the workload's defaults block as written.
	Defaults map[string]any `json:"defaults" ordered:"DefaultsJSON"`
	// DefaultsJSON, when set, is the defaults block's JSON text in file
	// order (workloads.Workload.DefaultsJSON); the results writers render
	// it in place of Defaults. Not decoded from payload files.
	DefaultsJSON json.RawMessage `json:"-"`
	// Repetitions is how many times each case ran.
	Repetitions int `json:"repetitions"`
	// Digest identifies the workload by its resolved content
	// (workloads.Workload.Digest), whatever path it was given by; merge
	// compares it. Addition; omitted when unknown.
	Digest string `json:"digest,omitempty"`
	// Generator is the generator the cases came from, nil (omitted) for
	// a workload of written cases only. Addition.
	Generator *Generator `json:"generator,omitempty"`
}

// Transport is the payload's "transport" block. RequestTimeoutS is nil
// when no transport timeout applied.
type Transport struct {
	// RequestTimeoutS is the transport timeout per request, in seconds.
	RequestTimeoutS *float64 `json:"request_timeout_s"`
	// Note says the transport timeout is a safety net, not a policy.
	Note string `json:"note"`
}

// PolicyNote is the payload's "policy" block.
type PolicyNote struct {
	Note string `json:"note"`
}

// CacheEvent is one cache reset made under the run's cache policy.
// CaseID and Repetition are set for "before-case" events only.
type CacheEvent struct {
	// Scope is "before-run" or "before-case".
	Scope string `json:"scope"`
	// CaseID is the case the reset preceded.
	CaseID *string `json:"case_id,omitempty"`
	// Repetition is that case's 0-based repetition.
	Repetition *int `json:"repetition,omitempty"`
	// Event is the reset's outcome.
	Event CacheReset `json:"event"`
}

// CachePolicy is the payload's "cache_policy" block.
type CachePolicy struct {
	// Mode is the normalized cache policy (see workloads.NormalizeCachePolicy).
	Mode string `json:"mode"`
	// Events are the resets made, in order; [] when none.
	Events []CacheEvent `json:"events"`
}

// Payload is the whole workload results document (reference:
// run_bench_serve_workload's payload).
type Payload struct {
	// RunID is the run's 8-hex-digit id, shared by every record.
	RunID string `json:"run_id"`
	// Timestamp is the run's start, ISO 8601 UTC.
	Timestamp   string       `json:"timestamp"`
	Workload    WorkloadInfo `json:"workload"`
	Transport   Transport    `json:"transport"`
	Policy      PolicyNote   `json:"policy"`
	CachePolicy CachePolicy  `json:"cache_policy"`
	// Summary aggregates Results.
	Summary RunSummary `json:"summary"`
	// Results are the records, case by case, repetition by repetition.
	Results []Record `json:"results"`
	// SLO holds the run-level thresholds checked after the run (the
	// workload's defaults.slo and the caller's), in order; omitted when
	// none were given. Addition.
	SLO []SLOResult `json:"slo,omitempty"`
	// Incomplete, when set, says the payload holds only part of a run
	// (rebuilt from the journal of a run that did not finish); its summary
	// does not pass. Addition; omitted for a finished run.
	Incomplete *Incomplete `json:"incomplete,omitempty"`
	// Schedule is how the requests were sent when the run was load (an
	// open or closed loop at a rate, benchtest.WithLoad or the CLI's
	// --request-rate); omitted for the
	// reference's sequential runs. Addition.
	Schedule *Schedule `json:"schedule,omitempty"`
}

// Incomplete describes a payload that holds only part of its run.
type Incomplete struct {
	// Reason says why, in words.
	Reason string `json:"reason"`
	// Records is how many records the payload holds; Expected how many
	// the run was to make (0 when unknown).
	Records  int `json:"records"`
	Expected int `json:"expected,omitempty"`
}

// Schedule records the load a run was sent as and what the client
// achieved, so a client that could not keep up is visible, never silent.
// Times are in milliseconds, rates in requests per second.
type Schedule struct {
	// Mode is "open" (arrivals on a seeded schedule), "closed", or
	// "trace" (arrivals at a trace's timestamps).
	Mode string `json:"mode"`
	// TargetRate is the requested rate; nil for an unlimited one (inf).
	// In a sharded run it is this shard's part (RunRate / N).
	TargetRate *float64 `json:"target_rate"`
	// Shard ("I/N") and RunRate, the whole run's rate, are set in a
	// sharded run (--shard); omitted otherwise.
	Shard   string   `json:"shard,omitempty"`
	RunRate *float64 `json:"run_rate,omitempty"`
	// StartAt is the wall-clock instant the schedule was told to start
	// at (--start-at, RFC 3339 in UTC), and StartLateMS how long after it
	// the schedule started, in ms (about 0 when the shard waited for it,
	// more when it was started after the instant had passed); both
	// omitted without --start-at.
	StartAt     string   `json:"start_at,omitempty"`
	StartLateMS *float64 `json:"start_late_ms,omitempty"`
	// Burstiness is the gamma shape of the arrival gaps (1 = Poisson).
	Burstiness float64 `json:"burstiness"`
	// Seed fixed the arrival schedule and the case sampling.
	Seed uint64 `json:"seed"`
	// MaxConcurrency capped the requests in flight; 0 = no cap.
	MaxConcurrency int `json:"max_concurrency"`
	// Requests is how many requests were scheduled (sent, dropped or
	// unsent); DurationS the schedule's length cap in seconds (0: none).
	Requests  int     `json:"requests"`
	DurationS float64 `json:"duration_s"`
	// RunRequests is the run's request count (--num-prompts) before a
	// sharded run split it, 0 when the duration bounds the run; omitted
	// when 0.
	RunRequests int `json:"run_requests,omitempty"`
	// InFlightCap is the bound on requests in flight the run applied, per
	// process: MaxConcurrency, else the default bound
	// (256), or a closed loop's number of streams.
	InFlightCap int `json:"in_flight_cap,omitempty"`
	// StartedAt is the instant the schedule started (its offset 0; ISO
	// 8601 as Record.StartedAt): what the shards of a run compare for
	// their start skew. Omitted when unknown.
	StartedAt string `json:"started_at,omitempty"`
	// Sent is how many requests were sent, and SendingWindowS the
	// seconds from the first send to the last.
	Sent           int     `json:"sent"`
	SendingWindowS float64 `json:"sending_window_s"`
	// AchievedRate is the rate the requests were sent at, over the
	// sending window: (Sent − 1) / SendingWindowS, so the
	// time the last request took is not part of it: the check of an
	// open loop's schedule against TargetRate, not what the server
	// served (RequestThroughput is). Null, AchievedRateReason then
	// saying why, in a closed loop (no arrival rate: each request went
	// when a stream was free) and when the window holds too few
	// requests to measure a rate.
	AchievedRate       *float64 `json:"achieved_rate"`
	AchievedRateReason string   `json:"achieved_rate_reason,omitempty"`
	// RequestThroughput is the rate the server served, in any loop: the
	// requests that succeeded per second of WallSpanS, the run's wall
	// span from its first send to the end of its last request (vLLM
	// bench serve's request_throughput, completions over the benchmark
	// duration). Null with RequestThroughputReason for fewer than 2
	// requests sent (one request's is only the inverse of its latency)
	// or a span too short to time.
	RequestThroughput       *float64 `json:"request_throughput"`
	RequestThroughputReason string   `json:"request_throughput_reason,omitempty"`
	WallSpanS               float64  `json:"wall_span_s"`
	// RateWindowS is, in a merged sharded run, the seconds the achieved
	// rate was measured over when that was the window in which every
	// shard was sending (shorter than SendingWindowS); omitted when the
	// rate is over the whole sending window.
	RateWindowS *float64 `json:"rate_window_s,omitempty"`
	// LagMS is the send time minus the scheduled time over the sent
	// requests (p50, p95, p99, max); nil when nothing was sent.
	LagMS *LagStats `json:"lag_ms"`
	// Late counts requests sent more than 1 ms behind schedule (the client
	// or the concurrency cap held them), Dropped those not sent because of
	// the cap, Unsent those the run's end cut off; UnsentEstimated says
	// Unsent is the expected number of arrivals the duration had left (a
	// schedule is not drawn past a stop), not a count.
	Late            int  `json:"late"`
	Dropped         int  `json:"dropped"`
	Unsent          int  `json:"unsent"`
	UnsentEstimated bool `json:"unsent_estimated,omitempty"`
	// ConnectionRetries is the sum of the sent requests'
	// connection_retries (Metrics.ConnectionRetries): how often the
	// server closed a kept-alive connection the client had just reused,
	// so that a request went out again on a fresh one. Many of them mean
	// a server that closes connections without "Connection: close".
	ConnectionRetries int `json:"connection_retries"`
	// PeakInFlight is the most requests in flight at once.
	PeakInFlight int `json:"peak_in_flight"`
	// MaxErrorRate is the error-rate limit the run was sent under
	// (--max-error-rate), omitted without one. StopReason says why the
	// run was stopped before its end, with the numbers ("error rate: 12
	// of 20 requests failed (…, 95% CI …), over the limit 0.05 with
	// confidence", or "interrupted (context canceled) after 137 of 300
	// requests were sent" for Ctrl-C); omitted when it ran to its end or
	// its duration ended it. A run stopped so leaves its remaining
	// requests unsent (Unsent).
	MaxErrorRate *float64 `json:"max_error_rate,omitempty"`
	StopReason   string   `json:"stop_reason,omitempty"`
	// TTFTFromScheduleMS and E2ELFromScheduleMS summarize the succeeded
	// requests' latencies counted from when they were due
	// (Record.TTFTFromScheduleMS), beside the summary's send-time
	// ttft_ms and latency_ms; null in a closed loop or a run without
	// such records, FromScheduleReason then saying why.
	TTFTFromScheduleMS *Stats `json:"ttft_from_schedule_ms"`
	E2ELFromScheduleMS *Stats `json:"e2el_from_schedule_ms"`
	FromScheduleReason string `json:"from_schedule_reason,omitempty"`
	// ClientValid is the verdict on the client itself: false when it could
	// not keep up, so the figures measure the client, not the server (lag
	// p99 above max(10 ms, a tenth of the mean gap between arrivals), or
	// its CPU use at 90% or more); ClientReason says why, in words, and
	// for a valid run how much headroom it had. Nil when not judged (a
	// payload from before the check, a merged or recovered one).
	ClientValid  *bool  `json:"client_valid,omitempty"`
	ClientReason string `json:"client_reason,omitempty"`
	// ClientCPUUtil is the client process's CPU (user + system) over the
	// run's wall time × GOMAXPROCS, 0 to 1 (null off unix; the whole
	// process, so an in-process test server counts too). ClientGCPauseMS
	// and ClientGCPauseMaxMS are the garbage collector's total and longest
	// pause over the run, in ms.
	ClientCPUUtil      *float64 `json:"client_cpu_util,omitempty"`
	ClientGCPauseMS    *float64 `json:"client_gc_pause_ms,omitempty"`
	ClientGCPauseMaxMS *float64 `json:"client_gc_pause_max_ms,omitempty"`
	// Goodput is the rate of the requests that succeeded and met every
	// limit of GoodputSLO (DistServe; vLLM's request_goodput): those
	// requests per second of WallSpanS, as RequestThroughput counts the
	// succeeded ones; nil without an SLO, or with GoodputReason when
	// RequestThroughput is null.
	Goodput       *float64           `json:"goodput"`
	GoodputReason string             `json:"goodput_reason,omitempty"`
	GoodputSLO    map[string]float64 `json:"goodput_slo,omitempty"`
	// StartSkewS is, in a merged sharded run, the seconds between the
	// first shard's start and the last shard's (their schedules'
	// StartedAt, else their first sends); the merged AchievedRate is
	// measured over the window in which every shard was sending.
	// Omitted otherwise.
	StartSkewS *float64 `json:"start_skew_s,omitempty"`
	// Notes are warnings about the figures above (a large start skew, lag
	// not recorded per request); omitted when none.
	Notes []string `json:"notes,omitempty"`
}

// LagStats are percentiles of the client's lag behind the schedule, in ms.
type LagStats struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// CaseSummary is one entry of RunSummary.CaseSummaries (reference:
// _summarize_case). Stats pointers are nil (JSON {}) when there are no
// samples... see MarshalJSON in summary.go.
type CaseSummary struct {
	// SampleCount is the case's records (one per repetition).
	SampleCount int `json:"sample_count"`
	// Repetitions are the distinct repetitions, sorted.
	Repetitions []int `json:"repetitions"`
	// Passed is true when every record's Quality.OK is.
	Passed bool `json:"passed"`
	// FailureCount counts records whose Quality.OK is false.
	FailureCount int `json:"failure_count"`
	// FailureRate is FailureCount / SampleCount rounded to 4 places.
	FailureRate float64 `json:"failure_rate"`
	// PolicyTimeoutPassed is true when every record was within its policy
	// timeout; null without one.
	PolicyTimeoutPassed *bool `json:"policy_timeout_passed"`
	// PolicyTimeoutFailureCount counts records over (or errored under) the
	// policy timeout; null without one.
	PolicyTimeoutFailureCount *int `json:"policy_timeout_failure_count"`
	// LatencyMS summarizes e2e latency in ms over the records whose request
	// succeeded.
	LatencyMS *Stats `json:"latency_ms"`
	// TTFTms summarizes TTFT in ms over the records whose request succeeded.
	TTFTms *Stats `json:"ttft_ms"`
	// GenTPS summarizes gen_tps in tokens/s over the records whose request
	// succeeded.
	GenTPS *Stats `json:"gen_tps"`
	// ContentChars summarizes content_chars (characters) over every record.
	ContentChars *Stats `json:"content_chars"`
	// InterruptedCount counts the case's interrupted records, left out of
	// every other field. Addition; omitted when 0.
	InterruptedCount int `json:"interrupted_count,omitempty"`
	// GenTPSSkipped counts the succeeded records left out of GenTPS
	// because their gen_tps was not measured (null: Metrics.DecodeTiming);
	// a gen_tps without a tpot_ms is not skipped (the reference's rule);
	// omitted when 0. Addition.
	GenTPSSkipped int `json:"gen_tps_skipped,omitempty"`
}

// RunSummary is the payload's "summary" block (reference:
// summarize_workload_results).
type RunSummary struct {
	// CaseCount counts records (case × repetition).
	CaseCount int `json:"case_count"`
	// UniqueCaseCount counts distinct case ids.
	UniqueCaseCount int `json:"unique_case_count"`
	// RepetitionCount is the most distinct repetitions of any case.
	RepetitionCount int `json:"repetition_count"`
	// Passed is true when every record's Quality.OK is; QualityPassed is the
	// same.
	Passed bool `json:"passed"`
	// FailureCount counts records whose Quality.OK is false; QualityFailureCount
	// is the same.
	FailureCount int `json:"failure_count"`
	// FailureRate is FailureCount / CaseCount rounded to 4 places, 0 for no
	// records.
	FailureRate         float64 `json:"failure_rate"`
	QualityPassed       bool    `json:"quality_passed"`
	QualityFailureCount int     `json:"quality_failure_count"`
	// PolicyTimeoutPassed is true when every record with a policy timeout was
	// within it; null when none had one.
	PolicyTimeoutPassed *bool `json:"policy_timeout_passed"`
	// PolicyTimeoutFailureCount counts records over (or errored under) their
	// policy timeout; null when none had one.
	PolicyTimeoutFailureCount *int `json:"policy_timeout_failure_count"`
	// LatencyMS, TTFTms (ms) and GenTPS (tokens/s) cover the records whose
	// request succeeded.
	LatencyMS *Stats `json:"latency_ms"`
	TTFTms    *Stats `json:"ttft_ms"`
	GenTPS    *Stats `json:"gen_tps"`
	// GenTPSSkipped counts the succeeded records left out of GenTPS
	// because their gen_tps was not measured (null: Metrics.DecodeTiming);
	// a gen_tps without a tpot_ms is not skipped (the reference's rule);
	// omitted when 0. Addition.
	GenTPSSkipped int `json:"gen_tps_skipped,omitempty"`
	// CaseSummaries maps case id to its summary; never nil.
	CaseSummaries map[string]CaseSummary `json:"case_summaries"`
	// PromptCache verifies the prefix cache: the reuse the requests were
	// built to have beside the cached tokens the server reported; nil
	// (omitted) when no record was built to share a prefix or reported
	// cached tokens. Addition.
	PromptCache *PromptCache `json:"prompt_cache,omitempty"`
	// InterruptedCount counts the records left out of every other field
	// because the run was stopped while they were in flight
	// (Record.Interrupted). Addition; omitted when 0.
	InterruptedCount int `json:"interrupted_count,omitempty"`
	// ConnectionRetries is the sum of the records' connection_retries
	// (Metrics.ConnectionRetries): requests sent again because the
	// server had closed a reused connection without answering. Addition;
	// omitted when 0.
	ConnectionRetries int `json:"connection_retries,omitempty"`
	// Lengths compares the generated requests' asked input and output
	// lengths with the server's (summarizeLengths); nil (omitted) when no
	// record is a generated one. Addition.
	Lengths *LengthSummary `json:"lengths,omitempty"`
}
