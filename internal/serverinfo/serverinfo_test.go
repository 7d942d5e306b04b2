package serverinfo_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/results"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func prober(t *testing.T, url string) *serverinfo.Prober {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &serverinfo.Prober{BaseURL: url, HTTP: &http.Client{Transport: tr}}
}

func TestParseStatusFallbacks(t *testing.T) {
	cases := []struct {
		name string
		in   map[string]any
		want results.Metal
	}{
		{"long keys", map[string]any{"model": "m", "metal": map[string]any{"active_memory_gb": 1.5, "peak_memory_gb": 2.0, "cache_memory_gb": 0.5}, "cache": map[string]any{"type": "paged"}},
			results.Metal{Model: "m", MetalActiveGB: 1.5, MetalPeakGB: 2, MetalCacheGB: 0.5, CacheType: "paged"}},
		{"short keys", map[string]any{"metal": map[string]any{"active_gb": 3.0, "peak_gb": 4.0, "cache_gb": "1.25"}},
			results.Metal{MetalActiveGB: 3, MetalPeakGB: 4, MetalCacheGB: 1.25}},
		{"zero long key falls through like Python's or", map[string]any{"metal": map[string]any{"active_memory_gb": 0.0, "active_gb": 7.0}},
			results.Metal{MetalActiveGB: 7}},
		{"nothing", map[string]any{}, results.Metal{}},
		{"wrong shapes", map[string]any{"metal": "x", "cache": 3, "model": 5}, results.Metal{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, serverinfo.ParseStatus(tc.in))
		})
	}
}

func TestDetectOnFixture(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Model: "m1"})
	rt := prober(t, srv.URL).Detect(context.Background())
	assert.Equal(t, "m1", rt.ModelID)
	assert.Equal(t, "llm", rt.ModelType)
	assert.Equal(t, "batched", rt.EngineType)
	assert.Equal(t, "prefix_cache", rt.CacheType)
	assert.Equal(t, srv.EngineStats()["metal_active_memory_gb"], rt.MetalActiveGB)
	assert.Equal(t, "benchserve-fixture", rt.Server)
}

// TestDetectToleratesMissingEndpoints: an Ollama-like server with only
// /v1/models (no /health, no /v1/status) still yields the model id.
func TestDetectToleratesMissingEndpoints(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"tiny:latest","object":"model","owned_by":"library"}]}`))
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("not json")) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	p := prober(t, srv.URL)
	rt := p.Detect(context.Background())
	assert.Equal(t, results.Runtime{ModelID: "tiny:latest", Server: "ollama"}, rt)
	ids, err := p.Models(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"tiny:latest"}, ids)
	assert.Equal(t, map[string]any{}, p.Status(context.Background()), "missing /v1/status is an empty map")
}

func TestClearCache(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	ev := prober(t, srv.URL).ClearCache(context.Background())
	assert.True(t, ev.Attempted)
	require.NotNil(t, ev.OK)
	assert.True(t, *ev.OK)
	assert.Equal(t, 200, *ev.StatusCode)
	assert.Equal(t, "", *ev.Error)

	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	ev = prober(t, plain.URL).ClearCache(context.Background())
	assert.False(t, *ev.OK, "a server without DELETE /v1/cache: recorded, not fatal")
	assert.Equal(t, 404, *ev.StatusCode)
	assert.Equal(t, "DELETE /v1/cache: HTTP 404", *ev.Error)
	assert.Equal(t, map[string]any{"text": "404 page not found\n"}, ev.Response, "non-JSON body kept as text")

	ev = prober(t, "http://127.0.0.1:1").ClearCache(context.Background())
	assert.False(t, *ev.OK)
	assert.Equal(t, 0, *ev.StatusCode)
	assert.Contains(t, *ev.Error, "connection refused")
}

func TestHardware(t *testing.T) {
	hw := serverinfo.Hardware()
	assert.True(t, strings.HasPrefix(hw.OSVersion, "Linux-"), "os_version like platform.platform(): %q", hw.OSVersion)
	assert.Greater(t, hw.MemoryGB, 0.5, "memory from /proc/meminfo in GiB")
	assert.NotEmpty(t, hw.Chip, "CPU model name from /proc/cpuinfo")
}

func TestNormalizeBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":          "http://127.0.0.1:8080",
		"http://127.0.0.1:8080/":         "http://127.0.0.1:8080",
		"http://127.0.0.1:8080/v1":       "http://127.0.0.1:8080",
		"http://127.0.0.1:8080/v1/":      "http://127.0.0.1:8080",
		" https://proxy.example/llm/v1 ": "https://proxy.example/llm",
		"http://h/v10":                   "http://h/v10",
	} {
		got, err := serverinfo.NormalizeBaseURL(in)
		require.NoError(t, err, "%q", in)
		assert.Equal(t, want, got, "%q", in)
	}
	for in, msg := range map[string]string{
		"127.0.0.1:8080":      "want http:// or https://",
		"localhost":           "want http:// or https://",
		"ftp://h":             "want http:// or https://",
		"http://":             "no host",
		"http://h/v1?x=1":     "no query or fragment",
		"http://[::1]:namedx": "",
	} {
		_, err := serverinfo.NormalizeBaseURL(in)
		require.Error(t, err, "%q must be rejected", in)
		assert.Contains(t, err.Error(), msg, "%q", in)
	}
}

// TestDetectModelReadsTheRunsModel: the entry of the model the run uses is
// read, not the first listed. Ollama lists the newest model first and its
// owned_by is the name's namespace: after `ollama cp tiny acme/tiny` the
// first entry is owned by "acme"; /api/version still says Ollama.
func TestDetectModelReadsTheRunsModel(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"object":"list","data":[` +
			`{"id":"acme/tiny:latest","object":"model","owned_by":"acme"},` +
			`{"id":"tiny:latest","object":"model","owned_by":"library"}]}`))
	})
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"version":"0.17.4"}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	p := prober(t, srv.URL)
	rt := p.DetectModel(context.Background(), "acme/tiny:latest")
	assert.Equal(t, results.Runtime{ModelID: "acme/tiny:latest", Server: "ollama"}, rt, "namespaced model on Ollama")
	rt = p.DetectModel(context.Background(), "tiny:latest")
	assert.Equal(t, results.Runtime{ModelID: "tiny:latest", Server: "ollama"}, rt, "the run's model, not the newest")

	mixed := http.NewServeMux()
	mixed.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"object":"list","data":[` +
			`{"id":"first","object":"model","owned_by":"vllm"},` +
			`{"id":"second","object":"model","owned_by":"sglang"}]}`))
	})
	srv2 := httptest.NewServer(mixed)
	defer srv2.Close()
	p2 := prober(t, srv2.URL)
	assert.Equal(t, results.Runtime{ModelID: "second", Server: "sglang"}, p2.DetectModel(context.Background(), "second"), "the run's model's entry")
	assert.Equal(t, results.Runtime{ModelID: "first", Server: "vllm"}, p2.DetectModel(context.Background(), ""), "no model: the first entry, as the reference")
	assert.Equal(t, results.Runtime{ModelID: "first", Server: "vllm"}, p2.DetectModel(context.Background(), "unlisted"), "an unlisted model: the first entry")
}
