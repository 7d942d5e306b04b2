// Package benchserve is the root of the benchserve module: contract tests
// and serving benchmarks for OpenAI-compatible LLM servers (vLLM,
// vllm-mlx, llama.cpp, Ollama, SGLang, LM Studio, proxies), run by go test.
// It holds only this comment; the packages a user imports are:
//
//   - benchtest: the go test plugin (RunWorkload, BenchWorkload,
//     BenchSweep, SearchCapacity): one subtest per workload case.
//   - workloads: loads and validates workload JSON files (the format of
//     vllm-mlx bench-serve --workload); examples in workloads/examples/.
//   - checks: the quality checks a case declares and their exact failure
//     messages (the reference's issue texts).
//   - fixtures: a deterministic OpenAI-compatible server for tests, with a
//     named failure scenario for every rule.
//   - metrics: the Prometheus collector a Go server or proxy embeds.
//   - results: the results payload users read (records, summaries).
//   - history: opt-in (blank import): SQLite histories, BENCHSERVE_OUTPUT=x.db.
//   - report: opt-in (blank import): the self-contained HTML report.
//
// Everything else is the engine, under internal/ (runner runs every door's
// requests; docs/design.md draws the flow), and the CLI, cmd/benchserve, a
// drop-in for `vllm-mlx bench-serve`.
//
// See example_test.go for the way a user writes a workload test.
package benchserve
