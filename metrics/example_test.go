package metrics_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/benchserve/benchserve/metrics"
)

type engine struct{}

func (engine) Stats() map[string]any {
	return map[string]any{
		"engine_type":  "batched",
		"prefix_cache": map[string]any{"hits": 3, "misses": 1, "tokens_saved": 48},
	}
}

func Example() {
	c := metrics.New() // disabled until configured
	c.Configure(true)

	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		tr := c.TrackInference("/v1/chat/completions", true)
		tr.ObserveTTFT() // when the first token is written
		tr.Finish("success", 12, 34)
	})
	mux.Handle("GET /metrics", c.Handler(engine{}, nil))
	srv := httptest.NewServer(c.Middleware(mux))
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", nil)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()

	body, _, _ := c.Render(engine{}, nil)
	for _, prefix := range []string{"vllm_mlx_cache_hits ", "vllm_mlx_prompt_tokens_total{", "vllm_mlx_http_requests_total{"} {
		fmt.Print(grep(string(body), prefix))
	}
	// Output:
	// vllm_mlx_cache_hits 3
	// vllm_mlx_prompt_tokens_total{endpoint="/v1/chat/completions",stream="true"} 12
	// vllm_mlx_http_requests_total{method="POST",path="/v1/chat/completions",status_code="200"} 1
}

func grep(text, prefix string) string {
	out := ""
	for _, line := range splitLines(text) {
		if len(line) >= len(prefix) && line[:len(prefix)] == prefix {
			out += line + "\n"
		}
	}
	return out
}

func splitLines(s string) []string {
	var lines []string
	start := 0
	for i := range len(s) {
		if s[i] == '\n' {
			lines = append(lines, s[start:i])
			start = i + 1
		}
	}
	return lines
}
