package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// load parses an in-memory workload.
func load(t *testing.T, src string) *workloads.Workload {
	t.Helper()
	w, err := workloads.Parse([]byte(src), "inline.json")
	require.NoError(t, err, "test workload must load")
	return w
}

func newRunner(t *testing.T, srv *fixtures.Server) *runner.Runner {
	t.Helper()
	r, err := runner.New(context.Background(), runner.Config{URL: srv.URL, RequestTimeout: 30 * time.Second})
	require.NoError(t, err, "runner against the fixture")
	t.Cleanup(r.Close)
	return r
}

func TestNewDetectsModelAndRuntime(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Model: "tiny-test"})
	r := newRunner(t, srv)
	assert.Equal(t, "tiny-test", r.Model(), "model comes from /v1/models")
	rt := r.Runtime()
	assert.Equal(t, "tiny-test", rt.ModelID)
	assert.Equal(t, "llm", rt.ModelType, "model_type from /health")
	assert.Equal(t, "batched", rt.EngineType, "engine_type from /v1/status")
	assert.Equal(t, "prefix_cache", rt.CacheType, "cache type from /v1/status")
	assert.Equal(t, "benchserve-fixture", rt.Server)
	assert.Len(t, r.RunID(), 8, "run id is 8 hex digits")
}

func TestNewFailsWithoutModel(t *testing.T) {
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"object":"list","data":[]}`))
	}))
	defer empty.Close()
	_, err := runner.New(context.Background(), runner.Config{URL: empty.URL})
	require.Error(t, err, "a server listing no model, none given: must fail")
	assert.Contains(t, err.Error(), "could not determine the model id")
	assert.Contains(t, err.Error(), "BENCHSERVE_MODEL", "and say how to give one")
}

func TestRunCaseRecordsMeasurementsAndChecks(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: strings.Fields("one two three four five"), TTFT: 20 * time.Millisecond, TokenDelay: 5 * time.Millisecond}
	}})
	w := load(t, `{"name":"w","cases":[{"id":"c","tags":"t","max_tokens":50,"policy_timeout_ms":10000,
		"messages":[{"role":"user","content":"hi there"}],
		"checks":{"min_chars":100,"required_regex":["five$"],"finish_reason":"stop"}}]}`)
	out := newRunner(t, srv).RunCase(context.Background(), w, w.Cases[0], 2, nil)
	rec := out.Record

	require.NoError(t, out.Err)
	assert.Equal(t, "c", rec.CaseID)
	assert.Equal(t, 2, rec.Repetition)
	assert.Equal(t, []string{"t"}, rec.Tags)
	assert.Equal(t, 50, rec.Request.MaxTokens)
	assert.Equal(t, 1, rec.Request.MessageCount)
	assert.Equal(t, 5, rec.Metrics.CompletionTokens, "usage from the fixture")
	assert.Equal(t, 2, rec.Metrics.PromptTokens, "two prompt words")
	assert.True(t, rec.Metrics.UsagePresent)
	assert.LessOrEqual(t, rec.Metrics.TTFTms, 20+400.0, "scripted TTFT 20 ms, with scheduling slack for a loaded machine")
	assert.GreaterOrEqual(t, rec.Metrics.TTFTms, 19.0, "TTFT cannot beat the scripted delay")
	assert.Greater(t, rec.Metrics.E2ELms, rec.Metrics.TTFTms, "E2E after TTFT")
	assert.Len(t, rec.Metrics.ITLms, 4, "five one-token chunks give four gaps")
	require.NotNil(t, rec.Quality.FinishReason)
	assert.Equal(t, "stop", *rec.Quality.FinishReason)
	assert.Equal(t, 19, rec.Quality.ContentChars, `tokens are streamed verbatim: "onetwothreefourfive"`)
	assert.False(t, rec.OK, "min_chars=100 cannot pass")
	assert.Equal(t, []string{"content shorter than min_chars=100"}, rec.Quality.Issues,
		"exactly the reference's issue text, and the regex check passed")
	require.NotNil(t, rec.Policy.WithinTimeout)
	assert.True(t, *rec.Policy.WithinTimeout, "finished well within 10 s")
	assert.Nil(t, rec.ToolCalls, "no tool calls: null as in the reference")
}

func TestRunCasePolicyTimeoutCancelsAndFails(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		// A slow drip: one token every 200 ms, far longer than the policy.
		return fixtures.Script{Content: strings.Fields(strings.Repeat("tok ", 100)), TokenDelay: 200 * time.Millisecond}
	}})
	w := load(t, `{"cases":[{"id":"slow","policy_timeout_ms":300,"messages":[{"role":"user","content":"go"}]}]}`)
	out := newRunner(t, srv).RunCase(context.Background(), w, w.Cases[0], 0, nil)

	require.Error(t, out.Err)
	assert.True(t, errors.Is(out.Err, stream.ErrPolicyTimeout), "error wraps ErrPolicyTimeout: %v", out.Err)
	rec := out.Record
	assert.False(t, rec.OK)
	require.NotNil(t, rec.Policy.WithinTimeout)
	assert.False(t, *rec.Policy.WithinTimeout, "a timed-out request is never within its timeout")
	assert.Contains(t, rec.Quality.Issues[0], "request error: ", "the error, the root cause, is the first issue")
	assert.NotEmpty(t, rec.Error)
	assert.Less(t, rec.Metrics.E2ELms, 3000.0, "the stream was cut near 300 ms, not run to the end")
	assert.Greater(t, rec.Quality.ContentChars, 0, "tokens received before the timeout are kept")
	require.Eventually(t, func() bool { return len(srv.Cancelled()) == 1 }, 5*time.Second, 10*time.Millisecond,
		"the runner asks the server to cancel the request")
	assert.True(t, strings.HasPrefix(srv.Cancelled()[0], "chatcmpl-"), "cancel names the stream's id")
	assert.NotContains(t, rec.Error, "cancel", "the cancel reached the request while it was live, so nothing to report: %s", rec.Error)
}

func TestRunCaseHTTPErrorKeepsServerStatus(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Status: 404, ErrorBody: `{"error":{"message":"model 'x' not found","type":"not_found"}}`}
	}})
	w := load(t, `{"cases":[{"messages":[{"role":"user","content":"go"}]}]}`)
	out := newRunner(t, srv).RunCase(context.Background(), w, w.Cases[0], 0, nil)
	require.Error(t, out.Err)
	rec := out.Record
	assert.Equal(t, "case_1", rec.CaseID)
	assert.Contains(t, rec.Quality.Issues[0], "model 'x' not found", "the server's own message comes first")
	assert.Equal(t, "(because the request failed) HTTP error 404", rec.Quality.Issues[1],
		"the real status, where the reference always says 500, marked as a consequence")
	assert.Nil(t, rec.Policy.WithinTimeout, "no policy timeout configured")
}

// TestRunCacheDeltasAndCollectorCounters runs a workload whose second case
// repeats the first one's prompt prefix: the second record shows cache
// hits and saved tokens (the reference always reports 0 against vllm-mlx),
// and the fixture's embedded collector counted every request.
func TestRunCacheDeltasAndCollectorCounters(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	w, err := workloads.Load("../../workloads/examples/prefix-cache.json")
	require.NoError(t, err)
	r := newRunner(t, srv)
	var seen []int
	p, err := r.Run(context.Background(), w, runner.RunOptions{Repetitions: 2, Progress: func(_ runner.Outcome, done, total int) {
		seen = append(seen, done*10+total)
	}})
	require.NoError(t, err)
	assert.Equal(t, []int{14, 24, 34, 44}, seen, "progress reports done/total after each case")
	require.Len(t, p.Results, 4)
	assert.Equal(t, "before-run", p.CachePolicy.Mode, "the workload's cache_policy")
	require.Len(t, p.CachePolicy.Events, 1)
	assert.True(t, *p.CachePolicy.Events[0].Event.OK, "DELETE /v1/cache succeeded")

	order := []string{}
	for _, rec := range p.Results {
		order = append(order, rec.CaseID+"/"+string(rune('0'+rec.Repetition)))
	}
	assert.Equal(t, []string{"cold/0", "warm/0", "cold/1", "warm/1"}, order, "repetition-major order as in the reference")

	cold, warm := p.Results[0].Metrics, p.Results[1].Metrics
	require.NotNil(t, cold.CacheHits, "the fixture exposes cache counters")
	assert.Equal(t, int64(0), *cold.CacheHits, "first sight of the prompt")
	assert.Equal(t, int64(1), *cold.CacheMisses)
	assert.Equal(t, int64(1), *warm.CacheHits, "same system prompt: a prefix-cache hit")
	assert.Greater(t, *warm.TokensSaved, int64(0), "tokens saved by the shared prefix")
	const cacheBlock = 16 // the fixture's prefix-cache block, in tokens (package fixtures' doc)
	assert.Equal(t, int64(0), *warm.TokensSaved%cacheBlock, "saved tokens come in whole blocks")
	assert.Equal(t, "vllm-mlx", warm.CacheDialect)

	// The collector saw the same traffic.
	fams := scrapeFamilies(t, srv)
	assert.Equal(t, 4.0, sumCounter(fams["vllm_mlx_inference_requests_total"]), "four chat completions")
	assert.Equal(t, 4.0, histCount(fams["vllm_mlx_inference_ttft_seconds"]), "one TTFT observation each")
	completion := 0
	for _, rec := range p.Results {
		completion += rec.Metrics.CompletionTokens
	}
	assert.Equal(t, float64(completion), sumCounter(fams["vllm_mlx_completion_tokens_total"]), "token counters match usage")
	assert.True(t, p.Summary.Passed, "every case passes on the fixture")
	assert.Equal(t, 4, p.Summary.CaseCount)
	assert.Equal(t, 2, p.Summary.RepetitionCount)
}

func TestRunRejectsBadCachePolicyAndEmptyTagSelection(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	w := load(t, `{"cases":[{"tags":["a"],"messages":[{"role":"user","content":"go"}]}]}`)
	r := newRunner(t, srv)
	_, err := r.Run(context.Background(), w, runner.RunOptions{CachePolicy: "sometimes"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cache policy")
	_, err = r.Run(context.Background(), w, runner.RunOptions{Tags: []string{"b"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no case has any of the tags [b]")
}

func TestRunStoppedKeepsMeasuredRecords(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	w := load(t, `{"cases":[{"id":"a","messages":[{"role":"user","content":"go"}]},{"id":"b","messages":[{"role":"user","content":"go"}]}]}`)
	r := newRunner(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	p, err := r.Run(ctx, w, runner.RunOptions{Progress: func(runner.Outcome, int, int) { cancel() }})
	require.Error(t, err, "a cancelled run says so")
	assert.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, p, "and still returns what it measured")
	require.Len(t, p.Results, 1)
	assert.Equal(t, "a", p.Results[0].CaseID)
	assert.Equal(t, 1, p.Summary.CaseCount, "the summary covers the measured records")
}

func TestRecordJSONHasReferenceKeys(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	w := load(t, `{"cases":[{"messages":[{"role":"user","content":"go"}]}]}`)
	out := newRunner(t, srv).RunCase(context.Background(), w, w.Cases[0], 0, nil)
	data, err := json.Marshal(out.Record)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for _, k := range []string{"run_id", "timestamp", "started_at", "workload", "case_id", "repetition", "tags", "model_id",
		"runtime", "hardware", "request", "policy", "cache_reset", "metrics", "quality", "tool_calls", "ok"} {
		assert.Contains(t, m, k, "record key %q of the reference", k)
	}
	assert.Equal(t, map[string]any{"attempted": false}, m["cache_reset"], "no reset: only attempted=false, as the reference writes")
	metrics := m["metrics"].(map[string]any)
	for _, k := range []string{"ttft_ms", "tpot_ms", "e2e_latency_ms", "gen_tps", "prompt_tps", "prompt_tokens",
		"completion_tokens", "cache_hits", "cache_misses", "tokens_saved", "metal"} {
		assert.Contains(t, metrics, k, "metrics key %q of the reference", k)
	}
}

func scrapeFamilies(t *testing.T, srv *fixtures.Server) map[string]*dtoFamily {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	require.NoError(t, err, "the fixture's /metrics is Prometheus text")
	return fams
}

// TestRunCaseErrorInsideStreamKeepsStatus200: an error event inside an
// HTTP 200 stream fails the case with the server's message; the basic
// validation sees the real status (the reference would claim HTTP 500).
func TestRunCaseErrorInsideStreamKeepsStatus200(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: strings.Fields("a b c d e"), ErrorAfter: 2, ErrorMessage: "KV cache exhausted"}
	}})
	w := load(t, `{"cases":[{"id":"e","messages":[{"role":"user","content":"go"}]}]}`)
	out := newRunner(t, srv).RunCase(context.Background(), w, w.Cases[0], 0, nil)
	var se *stream.ServerError
	require.ErrorAs(t, out.Err, &se)
	rec := out.Record
	assert.False(t, rec.OK, "never a success")
	require.Len(t, rec.Quality.Issues, 2)
	assert.Contains(t, rec.Quality.Issues[0], "KV cache exhausted", "the server's own message first")
	assert.Equal(t, "(because the request failed) Missing finish_reason", rec.Quality.Issues[1], "no HTTP error invented for a 200 stream")
	assert.Equal(t, "ab", out.Result.Content, "the two tokens before the error are kept")
}

func TestNewSaysWhyItCannotStart(t *testing.T) {
	_, err := runner.New(context.Background(), runner.Config{URL: "127.0.0.1:8080"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "want http:// or https://", "a URL without a scheme is named as such")

	_, err = runner.New(context.Background(), runner.Config{URL: "http://127.0.0.1:1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot reach a server at http://127.0.0.1:1", "unreachable, not 'no model'")
	assert.Contains(t, err.Error(), "connection refused")

	srv := fixtures.Start(t, fixtures.Options{})
	r, err := runner.New(context.Background(), runner.Config{URL: srv.URL + "/v1/"})
	require.NoError(t, err, "an OpenAI-style base URL ending in /v1 is accepted")
	t.Cleanup(r.Close)
	assert.Equal(t, fixtures.DefaultModel, r.Model())
}

// TestRunCaseServerGoneIsNotAnHTTPError: when no response arrives at all,
// no HTTP status is invented (the reference reports "HTTP error 500").
func TestRunCaseServerGoneIsNotAnHTTPError(t *testing.T) {
	srv := fixtures.New(fixtures.Options{})
	r := newRunner(t, srv)
	srv.Close()
	w := load(t, `{"cases":[{"id":"gone","messages":[{"role":"user","content":"go"}]}]}`)
	out := r.RunCase(context.Background(), w, w.Cases[0], 0, nil)
	require.Error(t, out.Err)
	assert.Contains(t, out.Record.Error, "connection refused")
	assert.Equal(t, []string{"request error: " + out.Record.Error, "(because the request failed) Missing finish_reason"}, out.Record.Quality.Issues)
}

// TestRunCaseErrorWithinPolicyTimeoutIsNotWithin: a request that failed
// fast is never "within its policy timeout" (reference semantics).
func TestRunCaseErrorWithinPolicyTimeoutIsNotWithin(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Status: 500}
	}})
	w := load(t, `{"cases":[{"policy_timeout_ms":10000,"messages":[{"role":"user","content":"go"}]}]}`)
	out := newRunner(t, srv).RunCase(context.Background(), w, w.Cases[0], 0, nil)
	require.Error(t, out.Err)
	require.Less(t, out.Record.Metrics.E2ELms, 10000.0, "it failed fast, well inside the timeout")
	require.NotNil(t, out.Record.Policy.WithinTimeout)
	assert.False(t, *out.Record.Policy.WithinTimeout, "an errored request is never within its policy timeout")
}
