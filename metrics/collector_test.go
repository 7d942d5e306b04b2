package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordKnownSequence plays a fixed sequence of events on c, advancing clk
// by fixed durations.
func recordKnownSequence(c *Collector, clk *fakeClock) {
	a := c.TrackInference("/v1/chat/completions", true)
	clk.Advance(30 * time.Millisecond)
	a.ObserveTTFT()
	clk.Advance(170 * time.Millisecond)
	a.ObserveTTFT() // second TTFT must be ignored
	a.Finish("success", 12, 8)
	a.Finish("error", 100, 100) // second Finish must be ignored

	b := c.TrackInference("/v1/completions", false)
	clk.Advance(2 * time.Second)
	b.ObserveTTFT()
	b.Finish("error", 5, 0)

	c.ObserveHTTPStart("POST", "/v1/chat/completions")
	c.ObserveHTTPFinish("POST", "/v1/chat/completions", 200, 200*time.Millisecond)
	c.ObserveHTTPStart("GET", "/health")
	c.ObserveHTTPFinish("GET", "/health", 404, 3*time.Millisecond)
	c.ObserveHTTPStart("POST", "/v1/chat/completions") // still in flight
	c.ObserveEmbeddingTruncated("bge-small")
}

func TestCollectorInferenceCountersAndHistograms(t *testing.T) {
	c, clk := enabledCollector()
	recordKnownSequence(c, clk)

	const want = `
# HELP vllm_mlx_inference_requests_total Inference requests completed by endpoint.
# TYPE vllm_mlx_inference_requests_total counter
vllm_mlx_inference_requests_total{endpoint="/v1/chat/completions",result="success",stream="true"} 1
vllm_mlx_inference_requests_total{endpoint="/v1/completions",result="error",stream="false"} 1
# HELP vllm_mlx_prompt_tokens_total Prompt/input tokens processed by endpoint.
# TYPE vllm_mlx_prompt_tokens_total counter
vllm_mlx_prompt_tokens_total{endpoint="/v1/chat/completions",stream="true"} 12
vllm_mlx_prompt_tokens_total{endpoint="/v1/completions",stream="false"} 5
# HELP vllm_mlx_completion_tokens_total Generated output tokens produced by endpoint.
# TYPE vllm_mlx_completion_tokens_total counter
vllm_mlx_completion_tokens_total{endpoint="/v1/chat/completions",stream="true"} 8
# HELP vllm_mlx_inference_ttft_seconds Time to first token for streaming endpoints.
# TYPE vllm_mlx_inference_ttft_seconds histogram
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.005"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.01"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.025"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.05"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.1"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.25"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.5"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="1"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="2.5"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="5"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="10"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="+Inf"} 1
vllm_mlx_inference_ttft_seconds_sum{endpoint="/v1/chat/completions",stream="true"} 0.03
vllm_mlx_inference_ttft_seconds_count{endpoint="/v1/chat/completions",stream="true"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.005"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.01"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.025"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.05"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.1"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.25"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.5"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="1"} 0
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="2.5"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="5"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="10"} 1
vllm_mlx_inference_ttft_seconds_bucket{endpoint="/v1/completions",stream="false",le="+Inf"} 1
vllm_mlx_inference_ttft_seconds_sum{endpoint="/v1/completions",stream="false"} 2
vllm_mlx_inference_ttft_seconds_count{endpoint="/v1/completions",stream="false"} 1
# HELP vllm_mlx_inference_request_duration_seconds End-to-end inference latency in seconds.
# TYPE vllm_mlx_inference_request_duration_seconds histogram
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.01"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.025"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.05"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.1"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.25"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="0.5"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="1"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="2.5"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="5"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="10"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="30"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="60"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/chat/completions",stream="true",le="+Inf"} 1
vllm_mlx_inference_request_duration_seconds_sum{endpoint="/v1/chat/completions",stream="true"} 0.2
vllm_mlx_inference_request_duration_seconds_count{endpoint="/v1/chat/completions",stream="true"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.01"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.025"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.05"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.1"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.25"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="0.5"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="1"} 0
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="2.5"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="5"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="10"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="30"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="60"} 1
vllm_mlx_inference_request_duration_seconds_bucket{endpoint="/v1/completions",stream="false",le="+Inf"} 1
vllm_mlx_inference_request_duration_seconds_sum{endpoint="/v1/completions",stream="false"} 2
vllm_mlx_inference_request_duration_seconds_count{endpoint="/v1/completions",stream="false"} 1
`
	err := testutil.GatherAndCompare(c.Gatherer(nil, nil), strings.NewReader(want),
		"vllm_mlx_inference_requests_total", "vllm_mlx_prompt_tokens_total",
		"vllm_mlx_completion_tokens_total", "vllm_mlx_inference_ttft_seconds",
		"vllm_mlx_inference_request_duration_seconds")
	assert.NoError(t, err, "inference metrics after the known sequence must match the expected exposition")
}

func TestCollectorHTTPMetrics(t *testing.T) {
	c, clk := enabledCollector()
	recordKnownSequence(c, clk)

	const want = `
# HELP vllm_mlx_http_requests_total HTTP requests handled by the server.
# TYPE vllm_mlx_http_requests_total counter
vllm_mlx_http_requests_total{method="GET",path="/health",status_code="404"} 1
vllm_mlx_http_requests_total{method="POST",path="/v1/chat/completions",status_code="200"} 1
# HELP vllm_mlx_http_requests_in_flight HTTP requests currently in flight.
# TYPE vllm_mlx_http_requests_in_flight gauge
vllm_mlx_http_requests_in_flight{method="GET",path="/health"} 0
vllm_mlx_http_requests_in_flight{method="POST",path="/v1/chat/completions"} 1
# HELP vllm_mlx_http_request_duration_seconds HTTP request latency in seconds.
# TYPE vllm_mlx_http_request_duration_seconds histogram
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="0.005"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="0.01"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="0.025"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="0.05"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="0.1"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="0.25"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="0.5"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="1"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="2.5"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="5"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="10"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="30"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="GET",path="/health",le="+Inf"} 1
vllm_mlx_http_request_duration_seconds_sum{method="GET",path="/health"} 0.003
vllm_mlx_http_request_duration_seconds_count{method="GET",path="/health"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="0.005"} 0
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="0.01"} 0
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="0.025"} 0
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="0.05"} 0
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="0.1"} 0
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="0.25"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="0.5"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="1"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="2.5"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="5"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="10"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="30"} 1
vllm_mlx_http_request_duration_seconds_bucket{method="POST",path="/v1/chat/completions",le="+Inf"} 1
vllm_mlx_http_request_duration_seconds_sum{method="POST",path="/v1/chat/completions"} 0.2
vllm_mlx_http_request_duration_seconds_count{method="POST",path="/v1/chat/completions"} 1
`
	err := testutil.GatherAndCompare(c.Gatherer(nil, nil), strings.NewReader(want),
		"vllm_mlx_http_requests_total", "vllm_mlx_http_requests_in_flight",
		"vllm_mlx_http_request_duration_seconds")
	assert.NoError(t, err, "HTTP metrics after the known sequence must match the expected exposition")
}

// referenceFamilies lists every metric family the reference's
// _init_prometheus declares, by exposed name.
var referenceFamilies = []string{
	"vllm_mlx_http_requests_total",
	"vllm_mlx_http_request_duration_seconds",
	"vllm_mlx_http_requests_in_flight",
	"vllm_mlx_inference_requests_total",
	"vllm_mlx_inference_request_duration_seconds",
	"vllm_mlx_inference_ttft_seconds",
	"vllm_mlx_prompt_tokens_total",
	"vllm_mlx_completion_tokens_total",
	"vllm_mlx_embedding_truncated_total", // added upstream in August 2026
	"vllm_mlx_model_loaded",
	"vllm_mlx_engine_type",
	"vllm_mlx_engine_is_mllm",
	"vllm_mlx_scheduler_waiting_requests",
	"vllm_mlx_scheduler_running_requests",
	"vllm_mlx_engine_steps_executed",
	"vllm_mlx_engine_uptime_seconds",
	"vllm_mlx_metal_memory_bytes",
	"vllm_mlx_cache_type",
	"vllm_mlx_cache_entry_count",
	"vllm_mlx_cache_hits",
	"vllm_mlx_cache_misses",
	"vllm_mlx_cache_evictions",
	"vllm_mlx_cache_hit_rate",
	"vllm_mlx_cache_utilization_ratio",
	"vllm_mlx_cache_memory_bytes",
	"vllm_mlx_cache_memory_limit_bytes",
	"vllm_mlx_cache_tokens_saved",
	"vllm_mlx_model_registry_entries",
	"vllm_mlx_model_registry_active_owners",
	"vllm_mlx_mcp_connected_servers",
	"vllm_mlx_mcp_total_servers",
	"vllm_mlx_mcp_tools_available",
}

func TestExpositionHasExactlyTheReferenceFamilies(t *testing.T) {
	c, clk := enabledCollector()
	recordKnownSequence(c, clk)

	mfs, err := c.Gatherer(fixedEngine(), mcpFake{}).Gather()
	require.NoError(t, err, "gather")
	got := make([]string, 0, len(mfs))
	for _, mf := range mfs {
		got = append(got, mf.GetName())
	}
	want := append([]string(nil), referenceFamilies...)
	sort.Strings(want)
	sort.Strings(got)
	assert.Equal(t, want, got, "exposed metric families must match the reference's one for one")
	assert.Len(t, referenceFamilies, 32, "the reference declares 32 metric families (31 + embedding_truncated_total)")
}

func TestExpositionIsLintClean(t *testing.T) {
	c, clk := enabledCollector()
	recordKnownSequence(c, clk)
	c.SetModelRegistry(registryFake{"total_entries": 2, "active_owners": 1})

	problems, err := testutil.GatherAndLint(c.Gatherer(fixedEngine(), mcpFake{states: []string{"connected"}, tools: 3}))
	require.NoError(t, err, "lint gather")
	// The reference's name vllm_mlx_cache_entry_count ends in "_count",
	// which promlint reserves for histograms and summaries. The name is
	// kept for dashboard compatibility (see the package doc); it must be
	// the only problem.
	var other []string
	for _, p := range problems {
		if p.Metric == "vllm_mlx_cache_entry_count" && strings.Contains(p.Text, `"_count" suffix`) {
			continue
		}
		other = append(other, p.Metric+": "+p.Text)
	}
	assert.Empty(t, other, "promlint must report no problems beyond the reference's own cache_entry_count name")
}

func TestRenderReturnsTextExposition(t *testing.T) {
	c, clk := enabledCollector()
	recordKnownSequence(c, clk)

	body, ct, err := c.Render(fixedEngine(), nil)
	require.NoError(t, err, "render of an enabled collector")
	assert.Equal(t, "text/plain; version=0.0.4; charset=utf-8", ct, "render content type is the Prometheus text format")
	assert.Contains(t, string(body), "vllm_mlx_cache_hits 5\n", "engine cache hits must be rendered from the stats")
	assert.Contains(t, string(body),
		`vllm_mlx_inference_requests_total{endpoint="/v1/chat/completions",result="success",stream="true"} 1`+"\n",
		"inference counter must be rendered")
}

func TestDisabledCollector(t *testing.T) {
	c := New()
	assert.False(t, c.Enabled(), "a new collector is disabled")

	_, _, err := c.Render(fixedEngine(), nil)
	assert.ErrorIs(t, err, ErrDisabled, "render while disabled")
	_, err = c.Gatherer(nil, nil).Gather()
	assert.ErrorIs(t, err, ErrDisabled, "gather while disabled")

	tr := c.TrackInference("/v1/chat/completions", true)
	assert.Nil(t, tr, "a disabled collector hands out the nil no-op tracker")
	tr.ObserveTTFT()
	tr.Finish("success", 1, 1)
	assert.False(t, tr.Finished(), "a nil tracker never reports finished")
	assert.Nil(t, c.state.Load(), "no registry is built while the collector was never enabled")

	disabledOps(c)
	assert.Nil(t, c.state.Load(), "events on a disabled collector build no registry")
	_, _, err = c.Render(fixedEngine(), nil)
	assert.ErrorIs(t, err, ErrDisabled, "events do not enable the collector")

	c.Configure(true)
	c.Configure(false)
	disabledOps(c)
	c.Configure(true)
	st := c.state.Load()
	require.NotNil(t, st, "enabling builds the registry")
	assert.Zero(t, testutil.ToFloat64(st.infRequests.WithLabelValues("/v1/chat/completions", "true", "success")),
		"inference events while disabled are not counted")
	assert.Zero(t, testutil.ToFloat64(st.infRequests.WithLabelValues("/v1/completions", "false", "success")),
		"ObserveInference while disabled is not counted")
	c.Configure(false)

	var nilC *Collector
	assert.False(t, nilC.Enabled(), "a nil collector is disabled")
	assert.Nil(t, nilC.TrackInference("/x", false), "a nil collector hands out nil trackers")
	nilC.ObserveHTTPStart("GET", "/x")
}

// disabledOps is one round of every hot-path event a server reports: the
// set TestDisabledCollector checks is ignored and BenchmarkDisabledPath
// measures.
func disabledOps(c *Collector) {
	t := c.TrackInference("/v1/chat/completions", true)
	t.ObserveTTFT()
	t.Finish("success", 10, 10)
	c.ObserveHTTPStart("GET", "/health")
	c.ObserveHTTPFinish("GET", "/health", 200, time.Millisecond)
	c.ObserveInference("/v1/completions", false, "success", time.Second, 1, 1)
	c.ObserveTTFT("/v1/completions", false, time.Second)
}

// BenchmarkDisabledPath is the cost of one round of hot-path events on a
// disabled collector (the fixture's default when metrics are off): it is
// meant to be free, 0 allocs/op (see the report of -benchmem or
// b.ReportAllocs).
func BenchmarkDisabledPath(b *testing.B) {
	c := New()
	b.ReportAllocs()
	for b.Loop() {
		disabledOps(c)
	}
}

func TestConfigureBuildsRegistryOnceAndKeepsValues(t *testing.T) {
	c, clk := enabledCollector()
	st := c.state.Load()
	require.NotNil(t, st, "enabling builds the registry")

	tr := c.TrackInference("/v1/chat/completions", false)
	clk.Advance(time.Second)
	tr.Finish("success", 1, 1)

	c.Configure(false)
	_, _, err := c.Render(nil, nil)
	assert.ErrorIs(t, err, ErrDisabled, "render after disabling")
	c.ObserveInference("/v1/chat/completions", false, "success", time.Second, 1, 1) // ignored

	c.Configure(true)
	assert.Same(t, st, c.state.Load(), "re-enabling must reuse the same registry")
	assert.Equal(t, 1.0, testutil.ToFloat64(st.infRequests.WithLabelValues("/v1/chat/completions", "false", "success")),
		"the counter keeps its value across disable/enable and ignores events while disabled")
}

func TestTrackerConcurrentUse(t *testing.T) {
	c, _ := enabledCollector()
	const goroutines, perG = 16, 50
	var wg sync.WaitGroup
	shared := c.TrackInference("/v1/shared", true)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perG {
				tr := c.TrackInference("/v1/chat/completions", g%2 == 0)
				tr.ObserveTTFT()
				tr.ObserveTTFT()
				tr.Finish("success", 2, 3)
				tr.Finish("success", 2, 3)
				shared.ObserveTTFT()
				shared.Finish("success", 1, 1)
				c.ObserveHTTPStart("GET", "/health")
				c.ObserveHTTPFinish("GET", "/health", 200, time.Duration(i)*time.Millisecond)
				if i%10 == 0 {
					_, _, _ = c.Render(fixedEngine(), nil)
				}
			}
		}()
	}
	wg.Wait()

	st := c.state.Load()
	total := testutil.ToFloat64(st.infRequests.WithLabelValues("/v1/chat/completions", "true", "success")) +
		testutil.ToFloat64(st.infRequests.WithLabelValues("/v1/chat/completions", "false", "success"))
	assert.Equal(t, float64(goroutines*perG), total, "every tracker finishes exactly once")
	assert.Equal(t, float64(goroutines*perG*2),
		testutil.ToFloat64(st.promptTokens.WithLabelValues("/v1/chat/completions", "true"))+
			testutil.ToFloat64(st.promptTokens.WithLabelValues("/v1/chat/completions", "false")),
		"prompt tokens counted once per tracker")
	assert.Equal(t, 1.0, testutil.ToFloat64(st.infRequests.WithLabelValues("/v1/shared", "true", "success")),
		"a tracker shared by many goroutines finishes once")
	n, err := testutil.GatherAndCount(st.reg, "vllm_mlx_inference_ttft_seconds")
	require.NoError(t, err, "count ttft")
	assert.Equal(t, 3, n, "ttft series: chat stream true/false and the shared tracker")
	assert.Equal(t, 0.0, testutil.ToFloat64(st.httpInFlight.WithLabelValues("GET", "/health")), "in-flight returns to 0")
	assert.Equal(t, float64(goroutines*perG),
		testutil.ToFloat64(st.httpRequests.WithLabelValues("GET", "/health", "200")), "every HTTP request counted")
}

func TestHandler(t *testing.T) {
	c, clk := enabledCollector()
	recordKnownSequence(c, clk)
	srv := httptest.NewServer(c.Handler(fixedEngine(), nil))
	defer srv.Close()

	resp, err := srv.Client().Get(srv.URL)
	require.NoError(t, err, "GET /metrics")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "enabled handler status")
	assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4"),
		"handler serves the text format by default, got %q", resp.Header.Get("Content-Type"))
	assert.Contains(t, string(body), "vllm_mlx_cache_tokens_saved 80\n", "handler refreshes engine gauges")

	c.Configure(false)
	resp, err = srv.Client().Get(srv.URL)
	require.NoError(t, err, "GET /metrics disabled")
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "disabled handler status: 404, as the reference's server")
	assert.Equal(t, "metrics disabled\n", string(body), "disabled handler body")
	srv.CloseClientConnections()
}

// TestEmbeddingTruncated ports the reference's observe_embedding_truncated:
// one counter family, label model, counted per call, nothing while disabled.
func TestEmbeddingTruncated(t *testing.T) {
	c, _ := enabledCollector()
	c.ObserveEmbeddingTruncated("bge-small")
	c.ObserveEmbeddingTruncated("bge-small")
	c.ObserveEmbeddingTruncated("e5")
	c.Configure(false)
	c.ObserveEmbeddingTruncated("e5")
	c.Configure(true)
	const want = `
# HELP vllm_mlx_embedding_truncated_total Embedding inputs silently truncated under the truncate overflow policy.
# TYPE vllm_mlx_embedding_truncated_total counter
vllm_mlx_embedding_truncated_total{model="bge-small"} 2
vllm_mlx_embedding_truncated_total{model="e5"} 1
`
	assert.NoError(t, testutil.GatherAndCompare(c.Gatherer(nil, nil), strings.NewReader(want), "vllm_mlx_embedding_truncated_total"),
		"embedding truncations per model; the disabled call is not counted")
	New().ObserveEmbeddingTruncated("x") // disabled collector: no registry, no panic
}
