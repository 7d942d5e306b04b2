package loadgen_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// An open-loop run at 50 requests per second against the fixture server,
// gated by two thresholds.
func Example() {
	srv := fixtures.New(fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: []string{"Hello", ",", " world"}, TTFT: 5 * time.Millisecond, TokenDelay: time.Millisecond}
	}})
	defer srv.Close()
	client := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	req := stream.Request{Model: "benchserve-fixture", Messages: []map[string]any{{"role": "user", "content": "hi"}}}

	run, err := loadgen.RunOpen(context.Background(), func(ctx context.Context, _ int) loadgen.Sample {
		return loadgen.SampleOf(client.ChatStream(ctx, req))
	},
		loadgen.Open{Rate: 50, Seed: 1, Requests: 10, MaxDuration: time.Minute})
	if err != nil {
		fmt.Println(err)
		return
	}
	st := summary.Run(run, summary.Options{Goodput: &results.GoodputSLO{TTFTms: 1000}})
	fmt.Printf("requests=%d succeeded=%d output_tokens=%d errors=%d\n", st.Requests, st.Succeeded, st.OutputTokens, len(st.Errors))

	ths, _ := results.ParseThresholds("ttft_p99_ms <= 1000", "error_rate <= 0")
	for _, o := range summary.Evaluate(st, ths) {
		fmt.Println(o.Name(), o.Pass)
	}
	// Output:
	// requests=10 succeeded=10 output_tokens=30 errors=0
	// ttft_p99_ms<=1000 true
	// error_rate<=0 true
}
