// Package scrape reads prefix-cache counters from a server's Prometheus
// /metrics endpoint, whichever dialect it speaks, so a workload run can
// report cache hits and tokens saved per case (reference:
// bench_serve.parse_metrics_text and scrape_metrics).
//
// Parsing uses prometheus/common/expfmt (not regexes), sums each counter
// over all its label sets, and reads exactly one dialect, the first
// present: the reference client's names, this module's collector
// (vllm_mlx_cache_*), vLLM's V1 prefix-cache token counters, llama.cpp's.
// See Parse for the precise mapping.
//
// A known bug of the reference, fixed here: the reference client reads
// vllm_prefix_cache_hits_total, vllm_prefix_cache_misses_total and
// vllm_prefix_cache_tokens_saved_total, names the reference collector
// (vllm-mlx's metrics module) never exposes (it exposes vllm_mlx_cache_hits,
// vllm_mlx_cache_misses and vllm_mlx_cache_tokens_saved), so against a real
// vllm-mlx server its cache deltas are always 0. This package reads the
// collector's names as dialect DialectVLLMMLX. The reference regex also
// skipped labelled series and non-integer values; this package does not.
//
// vLLM's counters are token counts (hit tokens and queried tokens), not
// request counts, so for DialectVLLM Hits and Misses are nil (unavailable)
// and the hit tokens are reported as TokensSaved, the queried tokens as
// TokensQueried. llama.cpp exposes no request-level cache counter either:
// recent builds expose llamacpp:prompt_tokens_cached_total (prompt tokens
// served from the cache), reported as TokensSaved; older builds expose
// nothing that measures cache reuse, and Parse then returns Dialect
// "llamacpp" with nil counters.
package scrape
