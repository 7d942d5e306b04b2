package scrape

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const referenceScrape = `# HELP vllm_prefix_cache_hits_total Prefix cache hits.
# TYPE vllm_prefix_cache_hits_total counter
vllm_prefix_cache_hits_total{model_name="qwen3-8b"} 4
vllm_prefix_cache_hits_total{model_name="llama-3.2-1b"} 3
# HELP vllm_prefix_cache_hits_created Prefix cache hits.
# TYPE vllm_prefix_cache_hits_created gauge
vllm_prefix_cache_hits_created{model_name="qwen3-8b"} 1.7e+09
vllm_prefix_cache_hits_created{model_name="llama-3.2-1b"} 1.7e+09
# HELP vllm_prefix_cache_misses_total Prefix cache misses.
# TYPE vllm_prefix_cache_misses_total counter
vllm_prefix_cache_misses_total{model_name="qwen3-8b"} 2
vllm_prefix_cache_misses_total{model_name="llama-3.2-1b"} 1
# HELP vllm_prefix_cache_tokens_saved_total Prompt tokens saved.
# TYPE vllm_prefix_cache_tokens_saved_total counter
vllm_prefix_cache_tokens_saved_total{model_name="qwen3-8b"} 256
vllm_prefix_cache_tokens_saved_total{model_name="llama-3.2-1b"} 1.5e+03
`

const vllmMLXScrape = `# HELP vllm_mlx_cache_entry_count Cache entries or allocated blocks, depending on cache type.
# TYPE vllm_mlx_cache_entry_count gauge
vllm_mlx_cache_entry_count 12
# HELP vllm_mlx_cache_hits Cache hits since startup/reset.
# TYPE vllm_mlx_cache_hits gauge
vllm_mlx_cache_hits 9
# HELP vllm_mlx_cache_misses Cache misses since startup/reset.
# TYPE vllm_mlx_cache_misses gauge
vllm_mlx_cache_misses 4
# HELP vllm_mlx_cache_tokens_saved Prompt tokens saved by cache reuse since startup/reset.
# TYPE vllm_mlx_cache_tokens_saved gauge
vllm_mlx_cache_tokens_saved 144
# HELP vllm_mlx_cache_type Current active cache backend.
# TYPE vllm_mlx_cache_type gauge
vllm_mlx_cache_type{cache_type="none"} 0
vllm_mlx_cache_type{cache_type="prefix_cache"} 1
# HELP vllm_mlx_inference_requests_total Inference requests completed by endpoint.
# TYPE vllm_mlx_inference_requests_total counter
vllm_mlx_inference_requests_total{endpoint="/v1/chat/completions",result="success",stream="true"} 13
`

// vllmV1Scrape is shaped like vLLM V1's /metrics (prometheus_client, two
// engines, _created series, deprecated gpu_ names alongside the new ones).
const vllmV1Scrape = `# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{generation="0"} 1234.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-8B"} 1.0
vllm:num_requests_running{engine="1",model_name="Qwen/Qwen3-8B"} 0.0
# HELP vllm:gpu_prefix_cache_queries_total GPU prefix cache queries, in terms of number of queried tokens. DEPRECATED: Use vllm:prefix_cache_queries instead.
# TYPE vllm:gpu_prefix_cache_queries_total counter
vllm:gpu_prefix_cache_queries_total{engine="0",model_name="Qwen/Qwen3-8B"} 999.0
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="Qwen/Qwen3-8B"} 2048.0
vllm:prefix_cache_queries_total{engine="1",model_name="Qwen/Qwen3-8B"} 1024.0
# HELP vllm:prefix_cache_queries_created Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_created gauge
vllm:prefix_cache_queries_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7500000001e+09
vllm:prefix_cache_queries_created{engine="1",model_name="Qwen/Qwen3-8B"} 1.7500000001e+09
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="Qwen/Qwen3-8B"} 1536.0
vllm:prefix_cache_hits_total{engine="1",model_name="Qwen/Qwen3-8B"} 512.0
# HELP vllm:prefix_cache_hits_created Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_created gauge
vllm:prefix_cache_hits_created{engine="0",model_name="Qwen/Qwen3-8B"} 1.7500000001e+09
vllm:prefix_cache_hits_created{engine="1",model_name="Qwen/Qwen3-8B"} 1.7500000001e+09
`

// vllmDeprecatedScrape only has the deprecated gpu_ names (older vLLM).
const vllmDeprecatedScrape = `# HELP vllm:gpu_prefix_cache_queries_total GPU prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:gpu_prefix_cache_queries_total counter
vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m1"} 300.0
vllm:gpu_prefix_cache_queries_total{engine="1",model_name="m1"} 100.0
# HELP vllm:gpu_prefix_cache_queries_created GPU prefix cache queries.
# TYPE vllm:gpu_prefix_cache_queries_created gauge
vllm:gpu_prefix_cache_queries_created{engine="0",model_name="m1"} 1.75e+09
# HELP vllm:gpu_prefix_cache_hits_total GPU prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:gpu_prefix_cache_hits_total counter
vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m1"} 64.0
vllm:gpu_prefix_cache_hits_total{engine="1",model_name="m1"} 32.0
`

// vllmNoCacheScrape is a vLLM server without prefix-cache counters.
const vllmNoCacheScrape = `# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m1"} 0.0
`

const llamaCppScrape = `# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 6886
# HELP llamacpp:prompt_tokens_cached_total Total prompt processing tokens (cached tokens).
# TYPE llamacpp:prompt_tokens_cached_total counter
llamacpp:prompt_tokens_cached_total 4096
# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 3469
# HELP llamacpp:n_decode_total Total number of llama_decode() calls
# TYPE llamacpp:n_decode_total counter
llamacpp:n_decode_total 3470
# HELP llamacpp:kv_cache_usage_ratio KV-cache usage. 1 means 100 percent usage.
# TYPE llamacpp:kv_cache_usage_ratio gauge
llamacpp:kv_cache_usage_ratio 0.25
`

// llamaCppOldScrape is an older llama-server: nothing measures cache reuse.
const llamaCppOldScrape = `# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 33065
# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 7801
# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 0
`

// vllmOpenMetrics is vLLM's counters in OpenMetrics 1.0.0 (family named
// without _total, _created as a sample).
const vllmOpenMetrics = `# HELP vllm:prefix_cache_hits Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{engine="0",model_name="m1"} 40.0
vllm:prefix_cache_hits_created{engine="0",model_name="m1"} 1.75e+09
vllm:prefix_cache_hits_total{engine="1",model_name="m1"} 2.0
vllm:prefix_cache_hits_created{engine="1",model_name="m1"} 1.75e+09
# HELP vllm:prefix_cache_queries Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{engine="0",model_name="m1"} 100.0
vllm:prefix_cache_queries_created{engine="0",model_name="m1"} 1.75e+09
# EOF
`

func f(v float64) *float64 { return &v }

func TestParseDialects(t *testing.T) {
	cases := []struct {
		name, body, contentType string
		want                    Counters
	}{
		{"reference client names summed over models", referenceScrape, "text/plain; version=0.0.4; charset=utf-8",
			Counters{Dialect: DialectReference, Hits: f(7), Misses: f(3), TokensSaved: f(1756)}},
		{"vllm-mlx collector gauges", vllmMLXScrape, "text/plain; version=0.0.4; charset=utf-8",
			Counters{Dialect: DialectVLLMMLX, Hits: f(9), Misses: f(4), TokensSaved: f(144)}},
		{"vllm v1 token counters over two engines, new names win over deprecated", vllmV1Scrape, "",
			Counters{Dialect: DialectVLLM, TokensSaved: f(2048), TokensQueried: f(3072)}},
		{"vllm deprecated gpu_ names when the new ones are absent", vllmDeprecatedScrape, "text/plain",
			Counters{Dialect: DialectVLLM, TokensSaved: f(96), TokensQueried: f(400)}},
		{"vllm without cache counters", vllmNoCacheScrape, "",
			Counters{Dialect: DialectVLLM}},
		{"llama.cpp cached prompt tokens", llamaCppScrape, "text/plain; version=0.0.4",
			Counters{Dialect: DialectLlamaCpp, TokensSaved: f(4096)}},
		{"older llama.cpp has no cache counter", llamaCppOldScrape, "",
			Counters{Dialect: DialectLlamaCpp}},
		{"vllm in OpenMetrics", vllmOpenMetrics, "application/openmetrics-text; version=1.0.0; charset=utf-8",
			Counters{Dialect: DialectVLLM, TokensSaved: f(42), TokensQueried: f(100)}},
		{"empty body", "", "", Counters{}},
		{"only unknown series", "# TYPE up gauge\nup 1\nprocess_cpu_seconds_total 3.5\n", "", Counters{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.body), tc.contentType)
			require.NoError(t, err, "parse %s", tc.name)
			assert.Equal(t, tc.want, got, "counters read from %s", tc.name)
		})
	}
}

func TestParsePrecedenceNeverMixesDialects(t *testing.T) {
	cases := []struct {
		name, body string
		want       Counters
	}{
		{"reference before vllm-mlx", vllmMLXScrape + referenceScrape,
			Counters{Dialect: DialectReference, Hits: f(7), Misses: f(3), TokensSaved: f(1756)}},
		{"vllm-mlx before vllm", vllmV1Scrape + vllmMLXScrape,
			Counters{Dialect: DialectVLLMMLX, Hits: f(9), Misses: f(4), TokensSaved: f(144)}},
		{"vllm before llama.cpp", llamaCppScrape + vllmV1Scrape,
			Counters{Dialect: DialectVLLM, TokensSaved: f(2048), TokensQueried: f(3072)}},
		{"partial reference dialect still wins; its missing counters are nil",
			"# TYPE vllm_prefix_cache_hits_total counter\nvllm_prefix_cache_hits_total 5\n" + vllmMLXScrape,
			Counters{Dialect: DialectReference, Hits: f(5)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.body), "")
			require.NoError(t, err, "parse")
			assert.Equal(t, tc.want, got, "only the first dialect present is read")
		})
	}
}

func TestParseMissingCountersAreNil(t *testing.T) {
	body := "# TYPE vllm_mlx_cache_hits gauge\nvllm_mlx_cache_hits 3\n"
	got, err := Parse([]byte(body), "")
	require.NoError(t, err, "parse")
	assert.Equal(t, DialectVLLMMLX, got.Dialect, "dialect")
	require.NotNil(t, got.Hits, "hits present")
	assert.Equal(t, 3.0, *got.Hits, "hits value")
	assert.Nil(t, got.Misses, "absent misses are unavailable, not 0")
	assert.Nil(t, got.TokensSaved, "absent tokens_saved is unavailable, not 0")
}

func TestParseRejectsNonPrometheusBodies(t *testing.T) {
	cases := map[string]string{
		"JSON-quoted exposition": strconv.Quote(vllmMLXScrape),
		"JSON object":            `{"error": "not found"}`,
		"HTML":                   "<html><body>hello</body></html>",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(body), "")
			require.Error(t, err, "parse must fail")
			assert.ErrorIs(t, err, ErrNotPrometheus, "error says the body is not Prometheus text")
		})
	}
	_, err := Parse([]byte(strconv.Quote(vllmMLXScrape)), "")
	assert.ErrorContains(t, err, "looks like JSON", "a JSON-quoted body gets the JSON hint")
}

func TestDelta(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	cases := []struct {
		name          string
		before, after *float64
		want          *int64
	}{
		{"growth", f(10), f(25), n(15)},
		{"no change", f(7), f(7), n(0)},
		{"reset means after", f(100), f(4), n(4)},
		{"rounded", f(1.4), f(3.6), n(2)},
		{"before unavailable", nil, f(3), nil},
		{"after unavailable", f(3), nil, nil},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, Delta(tc.before, tc.after), tc.name)
	}
}

func TestFetch(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ok/metrics", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sekrit" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(vllmMLXScrape))
	})
	mux.HandleFunc("GET /broken/metrics", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "engine exploded", http.StatusInternalServerError)
	})
	mux.HandleFunc("GET /json/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strconv.Quote(vllmMLXScrape)))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()

	got, err := Fetch(ctx, srv.Client(), srv.URL+"/ok/", "sekrit")
	require.NoError(t, err, "fetch ok")
	assert.Equal(t, Counters{Dialect: DialectVLLMMLX, Hits: f(9), Misses: f(4), TokensSaved: f(144)}, got, "fetched counters")

	_, err = Fetch(ctx, srv.Client(), srv.URL+"/missing", "")
	assert.ErrorIs(t, err, ErrNoMetrics, "404 means no metrics endpoint")

	_, err = Fetch(ctx, srv.Client(), srv.URL+"/broken", "")
	require.Error(t, err, "500 is an error")
	assert.False(t, errors.Is(err, ErrNoMetrics), "500 is not ErrNoMetrics")
	assert.ErrorContains(t, err, "500", "error names the status")
	assert.ErrorContains(t, err, "engine exploded", "error quotes the body")

	_, err = Fetch(ctx, srv.Client(), srv.URL+"/ok", "wrong")
	assert.ErrorContains(t, err, "401", "unauthorized is an error naming the status")

	_, err = Fetch(ctx, srv.Client(), srv.URL+"/json", "")
	assert.ErrorIs(t, err, ErrNotPrometheus, "a JSON-quoted body is not Prometheus text")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Fetch(cctx, srv.Client(), srv.URL+"/ok", "sekrit")
	assert.ErrorIs(t, err, context.Canceled, "a cancelled context is reported")
	srv.Client().CloseIdleConnections()
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{referenceScrape, vllmMLXScrape, vllmV1Scrape, vllmDeprecatedScrape,
		llamaCppScrape, llamaCppOldScrape, "", "\"# HELP x\"", "x{a=\"b\"} NaN\n", "vllm_mlx_cache_hits -Inf\n"} {
		f.Add([]byte(s), "")
	}
	f.Add([]byte(vllmOpenMetrics), "application/openmetrics-text; version=1.0.0")
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		c, err := Parse(body, ct)
		if err != nil {
			if !errors.Is(err, ErrNotPrometheus) {
				t.Fatalf("parse error must wrap ErrNotPrometheus: %v", err)
			}
			return
		}
		switch c.Dialect {
		case "", DialectReference, DialectVLLMMLX, DialectVLLM, DialectLlamaCpp:
		default:
			t.Fatalf("unknown dialect %q", c.Dialect)
		}
		if (c.Dialect == DialectVLLM || c.Dialect == DialectLlamaCpp) && (c.Hits != nil || c.Misses != nil) {
			t.Fatalf("token-level dialect %q must not report request-level hits/misses", c.Dialect)
		}
	})
}
