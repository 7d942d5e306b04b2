// Package integration runs benchserve against a real OpenAI-compatible
// inference server: Ollama v0.6.5 or v0.17.4 serving the tiny model written
// by tools/tinymodel, started by scripts/realserver.sh. It has no non-test
// code; its tests are skipped unless BENCHSERVE_URL names a running server.
//
//	env $(scripts/realserver.sh [--version v0.17.4] start) go test ./tests/integration/ -run . -v
//	scripts/realserver.sh [--version v0.17.4] stop
//
// The tests run the workload workloads/tiny-model.json through
// benchtest.RunWorkload (sequentially and with four requests in flight),
// a policy timeout that must fire mid-stream through the runner, and a few
// stream.Client checks against the raw server answer. README.md lists what
// the real server does differently from the fixture server and where the
// versions differ (pinned by the version GET /api/version reports), and
// testdata/ holds verbatim transcripts of both versions' answers.
package integration
