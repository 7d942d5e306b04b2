// Package integration runs benchserve against a real OpenAI-compatible
// inference server: Ollama v0.6.5 or v0.17.4 serving the tiny model written
// by tools/tinymodel, started by scripts/realserver.sh, or llama.cpp's
// llama-server serving the model's llama.cpp variant, started by
// scripts/llamaserver.sh. It has no non-test code; its tests are skipped
// unless BENCHSERVE_URL names a running server, and each pins what the
// server it finds does (Ollama by GET /api/version, llama-server by the
// build GET /props reports).
//
//	env $(scripts/realserver.sh [--version v0.17.4] start) go test ./tests/integration/ -run . -v
//	scripts/realserver.sh [--version v0.17.4] stop
//	env $(scripts/llamaserver.sh start) go test ./tests/integration/ -run . -v
//	scripts/llamaserver.sh stop
//
// The tests run the workload workloads/tiny-model.json (on llama-server
// workloads/tiny-model-llama.cpp.json, its seeds for that sampler) through
// benchtest.RunWorkload (sequentially and with four requests in flight),
// a policy timeout that must fire mid-stream through the runner, a random
// workload of 20 prompts of 512 tokens calibrated on the server (every
// usage.prompt_tokens within 1% of 512, counted by usage on Ollama and by
// POST /tokenize on llama-server), and a few stream.Client checks against
// the raw server answer. README.md lists what
// the real server does differently from the fixture server and where the
// versions differ (pinned by the version GET /api/version reports), and
// testdata/ holds verbatim transcripts of both versions' answers.
package integration
