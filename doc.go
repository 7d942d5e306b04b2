// Package benchserve is the root of the benchserve module: contract tests
// and serving benchmarks for OpenAI-compatible LLM servers (vLLM,
// vllm-mlx, llama.cpp, Ollama, SGLang, LM Studio, proxies), run by go test.
//
// The packages, from the top:
//
//   - benchtest: the go test plugin (RunWorkload, BenchWorkload).
//   - cmd/benchserve: the CLI, a drop-in for `vllm-mlx bench-serve`.
//   - runner: runs workload cases and builds result records.
//   - workload: loads and validates workload JSON files.
//   - checks: the quality checks and their exact failure messages.
//   - stream: the streaming chat-completions client (SSE, TTFT, TPOT, ITL).
//   - scrape: reads prefix-cache counters from a server's /metrics.
//   - serverinfo: runtime detection, hardware fingerprint, cache reset.
//   - results: the results payload, summaries and output formats.
//   - metrics: the Prometheus collector a Go server or proxy embeds.
//   - fixtures: a deterministic OpenAI-compatible server for tests.
//   - openai: the wire types shared by all of the above.
//
// See example_test.go for the way a user writes a workload test.
package benchserve
