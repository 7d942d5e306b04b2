package scrape_test

import (
	"fmt"

	"github.com/benchserve/benchserve/internal/scrape"
)

func ExampleParse() {
	body := []byte(`# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 96
vllm:prefix_cache_hits_total{engine="1",model_name="m"} 32
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 256
`)
	c, err := scrape.Parse(body, "text/plain; version=0.0.4")
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Dialect, *c.TokensSaved, *c.TokensQueried, c.Hits == nil)
	// Output: vllm 128 256 true
}
