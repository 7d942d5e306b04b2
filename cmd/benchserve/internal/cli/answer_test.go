package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// TestStderrSaysWhatTheAnswerWas: the per-case lines show reasoning beside
// content, the refusal, the choices and why rates are null; a refused
// cache reset is said once on stderr, not only inside the JSON.
func TestStderrSaysWhatTheAnswerWas(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{NoCacheReset: true})
	dir := t.TempDir()
	wl := writeWorkloadFile(t, dir, "shapes.json", `{"name":"shapes","cases":[
		{"id":"thinks","messages":[{"role":"user","content":"Tell me about rivers. [fixture:reasoning-only]"}]},
		{"id":"burst","max_tokens":12,"checks":{"finish_reason":["stop","length"]},"messages":[{"role":"user","content":"Tell me about lakes. [fixture:burst]"}]},
		{"id":"refuses","messages":[{"role":"user","content":"Tell me about seas. [fixture:refusal]"}]},
		{"id":"three","messages":[{"role":"user","content":"Tell me about hills. [fixture:choices]"}]}]}`)
	res := invoke(t, "--url", srv.URL, "--workload", wl, "--repetitions", "1", "--cache-policy", "before-case",
		"--output", filepath.Join(dir, "out.json"))
	require.Equal(t, ExitFailed, res.code, "the thinking and refusing cases fail")
	assert.Equal(t, 1, strings.Count(res.stderr, "cache reset before-case refused"), "said once, not per case: %s", res.stderr)
	assert.Contains(t, res.stderr, `benchserve: cache reset before-case refused: DELETE /v1/cache: HTTP 404 (404 page not found); the server's cache was not cleared, so "before-case" measured as "preserve"`, "refused reset on stderr")
	assert.Regexp(t, `thinks \.\.\. \d+ms ok \(capped by max_tokens\) \(1/4\)\n      reasoning \d+ chars \(60 chunks\), content 0 chars\n      Truncated \(finish_reason=length\): the answer was reasoning only`, res.stderr, "reasoning beside content, then why it is not validated (the outcome capped, not a failure)")
	assert.Regexp(t, `burst \.\.\. \d+ms ok \(2/4\)\n      tpot/gen_tps not measured: all \d+ tokens arrived in \d+ chunks within`, res.stderr, "why a burst has no rate")
	assert.Contains(t, res.stderr, `refusal "I'm sorry, but I can't help with that request."`, "the refusal")
	assert.Regexp(t, `three \.\.\. \d+ms ok \(4/4\)\n      3 choices`, res.stderr, "the choices")
}

// TestSLOSaysWhatItLeftOut: a gen_tps threshold over a run with a burst
// is measured on the timed requests only, and says how many it left out.
func TestSLOSaysWhatItLeftOut(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	wl := writeWorkloadFile(t, dir, "mixed.json", `{"name":"mixed","cases":[
		{"id":"steady","messages":[{"role":"user","content":"Tell me about rivers."}]},
		{"id":"burst","max_tokens":12,"checks":{"finish_reason":["stop","length"]},"messages":[{"role":"user","content":"Tell me about lakes. [fixture:burst]"}]}]}`)
	res := invoke(t, "--url", srv.URL, "--workload", wl, "--repetitions", "1", "--slo", "gen_tps_mean >= 1", "--slo", "ttft_p95_ms <= 60000",
		"--output", filepath.Join(dir, "out.json"))
	require.Equal(t, ExitOK, res.code, "both thresholds pass")
	assert.Contains(t, res.stderr, "SLO gen_tps_mean >= 1: 1 requests left out (decode span not observable, see decode_timing)\nSLO gen_tps_mean >= 1: PASS (measured ", "gen_tps says what it left out")
	assert.NotContains(t, res.stderr, "SLO ttft_p95_ms <= 60000: 1 requests left out", "ttft leaves nothing out")
	p := readPayload(t, filepath.Join(dir, "out.json"))
	assert.Equal(t, 1, p.Summary.GenTPSSkipped, "the summary counts the burst")
}
