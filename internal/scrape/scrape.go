package scrape

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/benchserve/benchserve/internal/openai"
)

// Dialect names reported in Counters.Dialect, in the order Parse tries
// them. Parse reads exactly one dialect: the first whose cache counters are
// present. Request-level dialects come before token-level ones.
const (
	// DialectReference is the names the reference client
	// (bench_serve.parse_metrics_text) reads: vllm_prefix_cache_hits_total,
	// vllm_prefix_cache_misses_total, vllm_prefix_cache_tokens_saved_total.
	// Request-level hits and misses plus tokens saved.
	DialectReference = "reference"
	// DialectVLLMMLX is this module's metrics collector (and vllm-mlx's):
	// the gauges vllm_mlx_cache_hits, vllm_mlx_cache_misses,
	// vllm_mlx_cache_tokens_saved. Request-level hits and misses plus
	// tokens saved.
	DialectVLLMMLX = "vllm-mlx"
	// DialectVLLM is vLLM's V1 engine: vllm:prefix_cache_hits_total and
	// vllm:prefix_cache_queries_total, token counters (falling back to the
	// deprecated vllm:gpu_prefix_cache_hits_total /
	// vllm:gpu_prefix_cache_queries_total only when both new names are
	// absent). Also reported, with nil counters, for a vLLM server exposing
	// no prefix-cache counter at all.
	DialectVLLM = "vllm"
	// DialectLlamaCpp is llama.cpp's llama-server (metric names prefixed
	// "llamacpp:"). Only llamacpp:prompt_tokens_cached_total (prompt tokens
	// served from the prompt cache, in recent builds) measures cache reuse.
	DialectLlamaCpp = "llamacpp"
)

// Metric names read by Parse.
const (
	refHits        = "vllm_prefix_cache_hits_total"
	refMisses      = "vllm_prefix_cache_misses_total"
	refSaved       = "vllm_prefix_cache_tokens_saved_total"
	mlxHits        = "vllm_mlx_cache_hits"
	mlxMisses      = "vllm_mlx_cache_misses"
	mlxSaved       = "vllm_mlx_cache_tokens_saved"
	vllmHits       = "vllm:prefix_cache_hits_total"
	vllmQueries    = "vllm:prefix_cache_queries_total"
	vllmGPUHits    = "vllm:gpu_prefix_cache_hits_total"
	vllmGPUQueries = "vllm:gpu_prefix_cache_queries_total"
	llamaCached    = "llamacpp:prompt_tokens_cached_total"
)

// Counters are the prefix-cache counters read from one scrape. A nil
// pointer means the server does not expose that counter ("unavailable"),
// which is different from 0. Values are summed over every label set of the
// family (several engines, models, …).
type Counters struct {
	// Dialect is the dialect read (one of the Dialect constants), or ""
	// when the scrape has no known cache metric.
	Dialect string
	// Hits and Misses are request-level prefix-cache hits and misses
	// (dialects reference and vllm-mlx only; nil for vLLM and llama.cpp,
	// which count tokens, not requests).
	Hits, Misses *float64
	// TokensSaved is the number of prompt tokens served from the cache:
	// tokens_saved (reference, vllm-mlx), prefix-cache hit tokens (vLLM),
	// cached prompt tokens (llama.cpp).
	TokensSaved *float64
	// TokensQueried is the number of prompt tokens looked up in the prefix
	// cache (vLLM's prefix_cache_queries_total); nil for other dialects.
	// TokensSaved / TokensQueried is vLLM's token hit rate.
	TokensQueried *float64
}

// ErrNoMetrics is returned (wrapped) by Fetch when the server answers 404
// for /metrics: it exposes no metrics endpoint.
var ErrNoMetrics = errors.New("scrape: server has no /metrics endpoint")

// ErrNotPrometheus is returned (wrapped) by Parse and Fetch when the body is
// not a Prometheus exposition (for example a JSON document or a JSON-quoted
// string).
var ErrNotPrometheus = errors.New("body is not Prometheus text exposition")

// maxBody bounds how much of a /metrics response Fetch reads.
const maxBody = 32 << 20

// Parse reads the prefix-cache counters from a /metrics body (reference:
// bench_serve.parse_metrics_text, which matched three names by regex and
// read 0 for anything missing).
//
// contentType selects the format as an HTTP Content-Type header would:
// "" or "text/plain; version=0.0.4" (Prometheus text), OpenMetrics 0.0.1
// and 1.0.0, or delimited protobuf. Parsing uses prometheus/common/expfmt.
//
// Exactly one dialect is read, the first present in this order:
// DialectReference, DialectVLLMMLX, DialectVLLM, DialectLlamaCpp; counters
// of different dialects are never added together. Counter "_created"
// series are never read. Unknown series are ignored; a counter the chosen
// dialect does not expose is nil. A body with no known cache metric gives
// Counters{} and no error (an empty body included).
//
// Errors wrap ErrNotPrometheus when the body cannot be parsed, with a hint
// when it looks like JSON.
func Parse(body []byte, contentType string) (Counters, error) {
	fams, err := decode(body, contentType)
	if err != nil {
		return Counters{}, err
	}
	return fromFamilies(fams), nil
}

func decode(body []byte, contentType string) (map[string]*dto.MetricFamily, error) {
	format := expfmt.FmtText
	if strings.TrimSpace(contentType) != "" {
		h := http.Header{}
		h.Set("Content-Type", contentType)
		if f := expfmt.ResponseFormat(h); f != expfmt.FmtUnknown {
			format = f
		}
	}
	dec := expfmt.NewDecoder(bytes.NewReader(body), format)
	fams := map[string]*dto.MetricFamily{}
	for {
		mf := &dto.MetricFamily{}
		err := dec.Decode(mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, notPrometheus(body, err)
		}
		name := mf.GetName()
		if prev, ok := fams[name]; ok {
			prev.Metric = append(prev.Metric, mf.Metric...)
			continue
		}
		fams[name] = mf
	}
	return fams, nil
}

func notPrometheus(body []byte, err error) error {
	head := bytes.TrimSpace(body)
	hint := ""
	if len(head) > 0 && (head[0] == '"' || head[0] == '{' || head[0] == '[') {
		hint = " (it looks like JSON; was the exposition JSON-encoded?)"
	}
	snippet := string(head)
	if len(snippet) > 60 {
		snippet = snippet[:60] + "…"
	}
	return fmt.Errorf("scrape: parse: %w%s: body starts %q: %v", ErrNotPrometheus, hint, snippet, err)
}

// lookup returns the family called name. For OpenMetrics, where a counter
// family is named without its "_total" suffix, it also tries that name.
func lookup(fams map[string]*dto.MetricFamily, name string) *dto.MetricFamily {
	if mf, ok := fams[name]; ok {
		return mf
	}
	if base, ok := strings.CutSuffix(name, "_total"); ok {
		if mf, ok := fams[base]; ok && mf.GetType() == dto.MetricType_COUNTER {
			return mf
		}
	}
	return nil
}

// sum adds a family's counter, gauge or untyped values over all label sets,
// skipping NaN. It returns nil when the family is absent or has no such
// value (a histogram or summary of that name, for instance).
func sum(fams map[string]*dto.MetricFamily, name string) *float64 {
	mf := lookup(fams, name)
	if mf == nil {
		return nil
	}
	total, found := 0.0, false
	for _, m := range mf.GetMetric() {
		var v float64
		switch {
		case m.Counter != nil:
			v = m.GetCounter().GetValue()
		case m.Gauge != nil:
			v = m.GetGauge().GetValue()
		case m.Untyped != nil:
			v = m.GetUntyped().GetValue()
		default:
			continue
		}
		if math.IsNaN(v) {
			continue
		}
		total += v
		found = true
	}
	if !found {
		return nil
	}
	return &total
}

func hasPrefix(fams map[string]*dto.MetricFamily, prefix string) bool {
	for name := range fams {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

func fromFamilies(f map[string]*dto.MetricFamily) Counters {
	if c := (Counters{Dialect: DialectReference, Hits: sum(f, refHits), Misses: sum(f, refMisses), TokensSaved: sum(f, refSaved)}); c.any() {
		return c
	}
	if c := (Counters{Dialect: DialectVLLMMLX, Hits: sum(f, mlxHits), Misses: sum(f, mlxMisses), TokensSaved: sum(f, mlxSaved)}); c.any() {
		return c
	}
	hits, queries := sum(f, vllmHits), sum(f, vllmQueries)
	if hits == nil && queries == nil {
		hits, queries = sum(f, vllmGPUHits), sum(f, vllmGPUQueries)
	}
	if hits != nil || queries != nil {
		return Counters{Dialect: DialectVLLM, TokensSaved: hits, TokensQueried: queries}
	}
	if hasPrefix(f, "llamacpp:") {
		return Counters{Dialect: DialectLlamaCpp, TokensSaved: sum(f, llamaCached)}
	}
	if hasPrefix(f, "vllm:") {
		return Counters{Dialect: DialectVLLM}
	}
	return Counters{}
}

func (c Counters) any() bool {
	return c.Hits != nil || c.Misses != nil || c.TokensSaved != nil || c.TokensQueried != nil
}

// Fetch GETs {baseURL}/metrics with hc (nil means http.DefaultClient) and
// parses it with Parse (reference: bench_serve.scrape_metrics, which
// swallowed every error and returned {}). apiKey, when not empty, is sent
// as "Authorization: Bearer <apiKey>".
//
// Errors: a 404 wraps ErrNoMetrics; any other non-2xx status is an error
// naming the status and the start of the body; transport errors and
// unparsable bodies (wrapping ErrNotPrometheus) are returned wrapped. At
// most 32 MiB of body is read.
func Fetch(ctx context.Context, hc *http.Client, baseURL, apiKey string) (Counters, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	url := strings.TrimRight(baseURL, "/") + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Counters{}, fmt.Errorf("scrape: fetch: %w", err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1")
	openai.Authorize(req.Header, apiKey)
	resp, err := hc.Do(req)
	if err != nil {
		return Counters{}, fmt.Errorf("scrape: fetch: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return Counters{}, fmt.Errorf("scrape: fetch: GET %s: read body: %w", url, err)
	}
	if resp.StatusCode == http.StatusNotFound {
		return Counters{}, fmt.Errorf("scrape: fetch: GET %s: %w", url, ErrNoMetrics)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet := strings.TrimSpace(string(body))
		if len(snippet) > 200 {
			snippet = snippet[:200] + "…"
		}
		return Counters{}, fmt.Errorf("scrape: fetch: GET %s: status %s: %s", url, resp.Status, snippet)
	}
	c, err := Parse(body, resp.Header.Get("Content-Type"))
	if err != nil {
		return Counters{}, fmt.Errorf("scrape: fetch: GET %s: %w", url, err)
	}
	return c, nil
}

// Delta returns after − before, rounded to the nearest integer, or nil when
// either is nil (the counter is unavailable). Following the Prometheus
// convention for counters (as rate() and increase() do), a decrease means
// the counter was reset (server restart, cache cleared) between the two
// scrapes, so the delta is after itself: everything counted since the
// reset. It is therefore never negative. (The reference subtracted plain
// integers and could report negative deltas.)
func Delta(before, after *float64) *int64 {
	if before == nil || after == nil {
		return nil
	}
	d := *after - *before
	if *after < *before {
		d = *after
	}
	n := int64(math.Round(d))
	return &n
}
