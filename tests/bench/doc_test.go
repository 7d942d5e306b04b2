// Package bench measures benchserve's own cost: how much CPU, memory and
// timing error the streaming client adds, so that what a benchmark reports
// is the server and not the harness. It has no API; its benchmarks are the
// product:
//
//		go test -run '^$' -bench . -benchtime 2s ./tests/bench
//
//	  - BenchmarkHotPath: one stream of 1,000 one-token chunks at full speed
//	    (no delays): client CPU per token (getrusage), allocations and bytes
//	    per token, with the fixture server in this process and in a child
//	    process (so the child's CPU and allocations are not counted).
//	  - BenchmarkOpenStreams: heap and goroutine stack held per open,
//	    idle stream, 1,000 at once.
//	  - BenchmarkTTFTAccuracy: rounds of N concurrent streams with a
//	    scripted TTFT of 100 ms and 10 ms between tokens; the error of the
//	    TTFT the client measures (measured − scripted) at p50/p99/max.
//	  - BenchmarkOpenLoopCeiling: open loops at 50, 200 and 800 req/s
//	    (BENCHSERVE_CEILING_RATES), short and long answers: schedule lag
//	    p50/p99, achieved rate, client CPU, streams in flight.
//	  - BenchmarkLargePrompt: 200 KB and 2 MB prompts served whole: req/s,
//	    MB/s and client CPU per byte.
//
// The figures and the method are in docs/benchmarks.md.
package bench
