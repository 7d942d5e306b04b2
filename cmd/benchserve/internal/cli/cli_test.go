package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
)

// result is one in-process run of benchserve.
type result struct {
	code           int
	stdout, stderr string
}

// invoke runs Main with args and returns its exit status and output.
func invoke(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	t.Logf("benchserve %s -> %d\nstderr:\n%s", strings.Join(args, " "), code, errb.String())
	return result{code, out.String(), errb.String()}
}

const smoke = "../../../../workloads/examples/smoke.json"

// keyPaths returns every JSON key path of v ("a.b", list items as "a[]"),
// not descending into opaque paths and replacing the keys of wildcard
// paths by "*".
func keyPaths(v any, prefix string, out map[string]bool, opaque, wildcard map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			key := k
			if wildcard[prefix] {
				key = "*"
			}
			p := key
			if prefix != "" {
				p = prefix + "." + key
			}
			out[p] = true
			if !opaque[p] {
				keyPaths(child, p, out, opaque, wildcard)
			}
		}
	case []any:
		for _, item := range x {
			keyPaths(item, prefix+"[]", out, opaque, wildcard)
		}
	}
}

// referenceWorkloadKeys is the key structure of the reference payload,
// written by hand from run_bench_serve_workload (payload),
// summarize_workload_results, _summarize_case, compute_summary_stats,
// _build_workload_record, auto_detect_runtime, detect_hardware_fingerprint
// and parse_status_response.
func referenceWorkloadKeys() map[string]bool {
	keys := map[string]bool{}
	add := func(prefix string, names ...string) {
		for _, n := range names {
			if prefix == "" {
				keys[n] = true
			} else {
				keys[prefix+"."+n] = true
			}
		}
	}
	stats := []string{"mean", "stddev", "min", "max", "p50", "p95", "p99"}
	add("", "run_id", "timestamp", "workload", "transport", "policy", "cache_policy", "summary", "results")
	add("workload", "name", "description", "path", "defaults", "repetitions")
	add("transport", "request_timeout_s", "note")
	add("policy", "note")
	add("cache_policy", "mode", "events")
	add("summary", "case_count", "unique_case_count", "repetition_count", "passed", "failure_count",
		"failure_rate", "quality_passed", "quality_failure_count", "policy_timeout_passed",
		"policy_timeout_failure_count", "latency_ms", "ttft_ms", "gen_tps", "case_summaries")
	for _, s := range []string{"latency_ms", "ttft_ms", "gen_tps"} {
		add("summary."+s, stats...)
	}
	cs := "summary.case_summaries.*"
	add("summary.case_summaries", "*")
	add(cs, "sample_count", "repetitions", "passed", "failure_count", "failure_rate",
		"policy_timeout_passed", "policy_timeout_failure_count", "latency_ms", "ttft_ms", "gen_tps", "content_chars")
	for _, s := range []string{"latency_ms", "ttft_ms", "gen_tps", "content_chars"} {
		add(cs+"."+s, stats...)
	}
	r := "results[]"
	add(r, "run_id", "timestamp", "started_at", "workload", "case_id", "repetition", "tags", "model_id",
		"runtime", "hardware", "request", "policy", "cache_reset", "metrics", "quality", "tool_calls", "ok")
	add(r+".runtime", "model_id", "model_type", "engine_type", "mtp_enabled", "specprefill", "kv_quant",
		"cache_type", "metal_active_gb", "metal_peak_gb", "metal_cache_gb")
	add(r+".hardware", "chip", "gpu_cores", "memory_gb", "bandwidth_gbs", "os_version")
	add(r+".request", "max_tokens", "request_path", "enable_thinking", "extra_body", "message_count")
	add(r+".policy", "timeout_ms", "within_timeout")
	add(r+".cache_reset", "attempted")
	add(r+".metrics", "ttft_ms", "tpot_ms", "e2e_latency_ms", "gen_tps", "prompt_tps", "prompt_tokens",
		"completion_tokens", "cache_hits", "cache_misses", "tokens_saved", "metal")
	add(r+".metrics.metal", "model", "metal_active_gb", "metal_peak_gb", "metal_cache_gb", "cache_type")
	add(r+".quality", "ok", "issues", "finish_reason", "content_chars", "content_preview")
	return keys
}

func TestWorkloadJSONKeyStructure(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	out := filepath.Join(t.TempDir(), "out.json")
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--format", "json", "--output", out, "--repetitions", "2")
	require.Equal(t, ExitOK, res.code, "smoke workload passes on the fixture")
	assert.Empty(t, res.stdout, "results go to --output, not stdout")
	assert.Contains(t, res.stderr, "Workload results written to "+out, "reference's closing line")
	assert.Contains(t, res.stderr, "  [2/2] multi-turn ... ", "progress line per case")
	assert.Contains(t, res.stderr, " ok (6/6)\n", "progress line counts")

	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc), "output is JSON")

	got := map[string]bool{}
	opaque := map[string]bool{"workload.defaults": true, "results[].request.extra_body": true}
	keyPaths(doc, "", got, opaque, map[string]bool{"summary.case_summaries": true})
	additions := map[string]bool{
		"results[].metrics.ttfo_ms": true, "results[].metrics.itl_ms": true, "results[].metrics.usage_present": true,
		"results[].metrics.token_chunks": true, "results[].metrics.cache_dialect": true,
		"results[].metrics.itl_count": true, "results[].metrics.itl_kept": true, "results[].metrics.itl": true,
		"results[].metrics.itl.min_ms": true, "results[].metrics.itl.max_ms": true, "results[].metrics.itl.mean_ms": true,
		"results[].metrics.itl.p50_ms": true, "results[].metrics.itl.p95_ms": true, "results[].metrics.itl.p99_ms": true,
		"results[].metrics.itl.estimated": true, "results[].metrics.itl.relative_error": true,
		"results[].runtime.server": true, "results[].error": true, "workload.digest": true,
		"results[].outcome": true, "results[].error_kind": true,
		"results[].request.id": true, "results[].request.server_id": true,
		"results[].quality.reasoning_chars": true, "results[].quality.reasoning_chunks": true, "results[].quality.reasoning_tokens": true,
		"results[].metrics.decode_timing": true, "results[].metrics.decode_timing_note": true, "summary.gen_tps_skipped": true,
		"results[].metrics.decode_tokens": true, "results[].metrics.decode_method": true,
		"results[].metrics.ref_tpot_ms": true, "results[].metrics.ref_gen_tps": true,
		"summary.case_summaries.*.gen_tps_skipped": true,
		"slo": true, "slo[].threshold": true, "slo[].measured": true, "slo[].pass": true,
		"slo[].conclusive": true, "slo[].ci": true, "slo[].ci.low": true, "slo[].ci.high": true, "slo[].ci.confidence": true,
		"slo[].ci.method": true, "slo[].ci.n": true, "slo[].ci.effective_n": true,
		// The fixture reports usage.prompt_tokens_details.cached_tokens: the
		// record keeps it and the summary verifies the cache.
		"results[].metrics.cached_tokens": true, "summary.prompt_cache": true, "summary.prompt_cache.requests": true,
		"summary.prompt_cache.built": true, "summary.prompt_cache.reported": true, "summary.prompt_cache.cached_tokens": true,
		"summary.prompt_cache.expected_cached_tokens": true, "summary.prompt_cache.expected_hit_rate": true,
		"summary.prompt_cache.hit_rate": true, "summary.prompt_cache.below_expected": true,
	}
	for k := range additions {
		delete(got, k)
	}
	assert.Equal(t, sorted(referenceWorkloadKeys()), sorted(got), "payload key structure equals the reference's (plus listed additions)")
	assert.EqualValues(t, 2, doc["workload"].(map[string]any)["repetitions"], "repetitions recorded")
	assert.Len(t, doc["results"], 6, "3 cases x 2 repetitions")
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestWorkloadTabularFormats(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()

	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--format", "csv")
	require.Equal(t, ExitOK, res.code)
	header, _, _ := strings.Cut(res.stdout, "\r\n")
	assert.Equal(t, strings.Join(resultio.WorkloadResultColumns, ","), header, "csv header is WORKLOAD_RESULT_COLUMNS")

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--format", "sql")
	require.Equal(t, ExitOK, res.code)
	assert.Contains(t, res.stdout, "CREATE TABLE IF NOT EXISTS bench_serve_workload ("+resultio.WorkloadSQLSchema+");", "sql schema is the reference's")
	assert.Equal(t, 3, strings.Count(res.stdout, "INSERT INTO bench_serve_workload VALUES ("), "one insert per record")

	db := filepath.Join(dir, "runs.db")
	for i := range 2 {
		res = invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--format", "sqlite", "--output", db)
		require.Equal(t, ExitOK, res.code, "sqlite run %d", i)
		assert.Contains(t, res.stderr, "Workload SQLite results written to "+db)
	}
	rows, err := history.ReadRows(context.Background(), db, resultio.WorkloadTable)
	require.NoError(t, err)
	require.Len(t, rows, 6, "two runs of 3 records are both kept")
	var cols []string
	for k := range rows[0] {
		cols = append(cols, k)
	}
	assert.ElementsMatch(t, resultio.WorkloadResultColumns, cols, "sqlite columns are WORKLOAD_RESULT_COLUMNS")
	assert.NotEqual(t, rows[0]["run_id"], rows[5]["run_id"], "the two runs have their own run ids")

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--format", "sqlite")
	assert.Equal(t, ExitUsage, res.code, "sqlite without --output is a usage error")
	assert.Contains(t, res.stderr, "--output is required when --format sqlite")
}

func TestWorkloadExitCodes(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	failing := filepath.Join(dir, "failing.json")
	require.NoError(t, os.WriteFile(failing, []byte(`{"name":"failing","cases":[
		{"id":"never","messages":[{"role":"user","content":"Say hello."}],"checks":{"required_regex":["THIS-TEXT-NEVER-APPEARS"]}}]}`), 0o644))
	out := filepath.Join(dir, "out.json")
	res := invoke(t, "--url", srv.URL, "--workload", failing, "--repetitions", "1", "--output", out)
	assert.Equal(t, ExitFailed, res.code, "a failing check exits 1")
	assert.Contains(t, res.stderr, "  [1/1] never ... ", "progress printed")
	assert.Contains(t, res.stderr, " FAIL (1/1)", "failure shown in progress")
	data, err := os.ReadFile(out)
	require.NoError(t, err, "results are written even when a case fails")
	assert.Contains(t, string(data), "THIS-TEXT-NEVER-APPEARS", "the failed check's issue is in the payload")

	sent := len(srv.ChatRequests())
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"cases":[{"id":"a","messages":[],"max_token":3},{"id":"b","messages":[{"role":"user","content":"x"}],"checks":{"min_chars":"x"}}]}`), 0o644))
	res = invoke(t, "--url", srv.URL, "--workload", bad)
	assert.Equal(t, ExitUsage, res.code, "workload errors exit 2")
	assert.Contains(t, res.stderr, `case "a"`, "first problem printed")
	assert.Contains(t, res.stderr, `case "b"`, "second problem printed too")
	assert.Len(t, srv.ChatRequests(), sent, "nothing was sent for the broken workload")

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--format", "xml")
	assert.Equal(t, ExitUsage, res.code, "bad flag value exits 2")
	assert.Contains(t, res.stderr, `invalid choice: "xml"`)

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "0")
	assert.Equal(t, ExitUsage, res.code, "repetitions 0 exits 2")

	res = invoke(t, "--url", srv.URL, "stray")
	assert.Equal(t, ExitUsage, res.code, "a stray positional argument exits 2")
}

func TestWorkloadWarnsAboutSweepFlags(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1",
		"--prompts", "short", "--concurrency", "2", "--warmup", "3", "--tag", "x")
	require.Equal(t, ExitOK, res.code)
	assert.Contains(t, res.stderr, "Warning: --workload mode ignores sweep-only args: --prompts=short, --concurrency=2, --warmup=3, --tag=x\n",
		"the reference's warning, extended with other sweep-only flags")

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--prompts", "short,medium,long")
	assert.NotContains(t, res.stderr, "Warning:", "flags at their defaults are not warned about (compared by value, as the reference)")
}

func TestSweepAllFormats(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	base := []string{"--url", srv.URL, "--prompts", "short,medium", "--concurrency", "1,4", "--repetitions", "2", "--warmup", "0"}

	res := invoke(t, base...)
	require.Equal(t, ExitOK, res.code, "sweep passes on the fixture")
	assert.Contains(t, res.stderr, "Total runs: 8\n", "8 configurations")
	assert.Contains(t, res.stderr, "  medium conc=4 rep=1: TTFT=", "progress for the last run")
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	require.Len(t, lines, 2+8, "table on stdout by default: header, rule, 8 rows")
	assert.Equal(t, resultio.TableColumns, strings.Fields(lines[0]), "table columns are the reference's")

	jsonOut := filepath.Join(dir, "sweep.json")
	res = invoke(t, append(base, "--format", "json", "--output", jsonOut, "--tag", "nightly", "--override-field", "chip=TestChip", "gpu_cores=7")...)
	require.Equal(t, ExitOK, res.code)
	assert.Contains(t, res.stderr, "\nResults written to "+jsonOut+"\n")
	var rows []map[string]any
	data, err := os.ReadFile(jsonOut)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rows))
	require.Len(t, rows, 8)
	var keys []string
	for k := range rows[0] {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, resultio.ResultColumns, keys, "json rows carry RESULT_COLUMNS")
	assert.Equal(t, "nightly", rows[0]["tag"], "--tag stored")
	assert.Equal(t, "TestChip", rows[7]["chip"], "--override-field with several pairs (nargs=*)")
	assert.EqualValues(t, 7, rows[7]["gpu_cores"], "int override converted")
	assert.Equal(t, "medium", rows[7]["prompt_set"])
	assert.EqualValues(t, 4, rows[7]["concurrency"])
	assert.EqualValues(t, 1, rows[7]["repetition"])

	// The other formats on a one-point sweep: they write rows, whatever
	// their number.
	one := []string{"--url", srv.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "2", "--warmup", "0"}
	res = invoke(t, append(one, "--format", "csv")...)
	require.Equal(t, ExitOK, res.code)
	header, _, _ := strings.Cut(res.stdout, "\r\n")
	assert.Equal(t, strings.Join(resultio.ResultColumns, ","), header, "csv header is RESULT_COLUMNS")
	assert.Equal(t, 3, strings.Count(res.stdout, "\r\n"), "header and 2 rows")

	res = invoke(t, append(one, "--format", "sql")...)
	require.Equal(t, ExitOK, res.code)
	assert.Contains(t, res.stdout, "CREATE TABLE IF NOT EXISTS bench_serve ("+resultio.SQLSchema+");")
	assert.Equal(t, 2, strings.Count(res.stdout, "INSERT INTO bench_serve VALUES ("), "one insert per row")

	db := filepath.Join(dir, "sweep.db")
	for i := range 2 {
		res = invoke(t, append(one, "--format", "sqlite", "--output", db)...)
		require.Equal(t, ExitOK, res.code, "sqlite run %d", i)
		assert.Contains(t, res.stderr, "\nSQLite results written to "+db+"\n")
	}
	dbRows, err := history.ReadRows(context.Background(), db, resultio.SweepTable)
	require.NoError(t, err)
	assert.Len(t, dbRows, 4, "two sweeps of 2 rows are both kept")
}

func TestSweepFailuresAndUsage(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Status: 500}
	}})
	res := invoke(t, "--url", srv.URL, "--model", fixtures.DefaultModel, "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--format", "json")
	assert.Equal(t, ExitFailed, res.code, "an all-errored configuration exits 1")
	assert.Contains(t, res.stderr, "  short conc=1 rep=0: FAIL (all 1 requests failed: stream: HTTP 500")
	assert.Contains(t, res.stdout, `"validated": false`, "the failed row is still written")

	sent := len(srv.ChatRequests())
	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "1,x", "--enable-thinking", "maybe",
		"--extra-body", "{nope}", "--override-field", "nosuch=1", "--repetitions", "0")
	assert.Equal(t, ExitUsage, res.code, "input errors exit 2")
	for _, want := range []string{`--concurrency: want integers >= 1, got "x"`, `--enable-thinking: want true, false or true,false, got "maybe"`, "--repetitions must be at least 1"} {
		assert.Contains(t, res.stderr, want, "every flag problem is printed")
	}
	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--extra-body", "{nope}", "--override-field", "nosuch=1")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, `extra body 0 "{nope}"`, "bad extra body reported")
	assert.Contains(t, res.stderr, "unknown result field", "unknown override reported")
	assert.Len(t, srv.ChatRequests(), sent, "nothing sent on input errors")
}

func freeURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr
}

func TestUnreachableServer(t *testing.T) {
	old := defaultURL
	defaultURL = freeURL(t)
	t.Cleanup(func() { defaultURL = old })

	res := invoke(t, "--workload", smoke)
	assert.Equal(t, ExitUsage, res.code, "no server exits 2")
	assert.Contains(t, res.stderr, "benchserve: cannot list the models at "+defaultURL+": connection refused; is the server running, and is --url its address?\n", "what was tried, what went wrong, what to do")
	assert.Contains(t, res.stderr, "benchserve fixture --addr 127.0.0.1:8080", "hint to start the fixture")

	res = invoke(t, "--prompts", "short")
	assert.Equal(t, ExitUsage, res.code, "sweep without a server exits 2")
	assert.Contains(t, res.stderr, "benchserve fixture --addr", "hint in sweep mode too")

	res = invoke(t, "--url", freeURL(t), "--workload", smoke)
	assert.Equal(t, ExitUsage, res.code)
	assert.NotContains(t, res.stderr, "benchserve fixture", "no fixture hint when --url was given")
}

func TestHelpVersionAndCommands(t *testing.T) {
	res := invoke(t, "--help")
	assert.Equal(t, ExitOK, res.code)
	for _, want := range []string{"--skip-preflight-token-count", "--override-field", "--api-key", "Exit status:", "  2  usage or input errors"} {
		assert.Contains(t, res.stdout, want, "help mentions %s", want)
	}
	res = invoke(t, "version")
	assert.Equal(t, ExitOK, res.code)
	assert.True(t, strings.HasPrefix(res.stdout, "benchserve "), "version line: %q", res.stdout)
	res = invoke(t, "frobnicate")
	assert.Equal(t, ExitUsage, res.code, "unknown command exits 2")
	assert.Contains(t, res.stderr, "fixture", "lists the commands")
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestFixtureCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"fixture", "--addr", "127.0.0.1:0", "--model", "tiny"}, &env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	}()
	var url string
	require.Eventually(t, func() bool {
		s := out.String()
		i := strings.Index(s, "http://")
		if i < 0 {
			return false
		}
		url = strings.Fields(s[i:])[0]
		return true
	}, 10*time.Second, 10*time.Millisecond, "fixture announces its URL")
	hc := &http.Client{Transport: &http.Transport{}}
	resp, err := hc.Get(url + "/v1/models")
	require.NoError(t, err, "fixture answers")
	var models struct {
		Data []struct{ ID string } `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&models))
	resp.Body.Close()
	hc.CloseIdleConnections()
	require.Len(t, models.Data, 1)
	assert.Equal(t, "tiny", models.Data[0].ID, "--model is served")
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, ExitOK, code, "fixture stops cleanly on interrupt")
	case <-time.After(10 * time.Second):
		t.Fatal("fixture did not stop after cancellation")
	}
	assert.Contains(t, out.String(), "benchserve fixture: stopped")
}

func TestExpandNargs(t *testing.T) {
	got := expandNargs([]string{"--override-field", "a=1", "b=2", "--tag", "x", "-override-field=c=3", "--override-field", "--", "d"}, "override-field")
	assert.Equal(t, []string{"--override-field=a=1", "--override-field=b=2", "--tag", "x", "-override-field=c=3", "--", "d"}, got)
}

func TestSplitExtraBodies(t *testing.T) {
	assert.Equal(t, []string{`{"a":1}`, `{"b":{"c":2}}`}, splitExtraBodies(`{"a":1}, {"b":{"c":2}}`), "unquoted list")
	assert.Equal(t, []string{`{"a":1}`, `{"b":2}`}, splitExtraBodies(`'{"a":1}, {"b":2}'`), "outer quotes stripped from each piece")
	// As the reference's regex, literal quotes between the objects (which a
	// shell would have removed) do not split.
	assert.Equal(t, []string{`{"a":1}','{"b":2}`}, splitExtraBodies(`'{"a":1}','{"b":2}'`), "quoted pieces are not split, as in the reference")
	assert.Equal(t, []string{`{"a":[1,2]}`}, splitExtraBodies(`{"a":[1,2]}`), "a comma not between } and { does not split")
}

// TestSweepPartialFailuresAreVisible: 2 of 4 requests of a row fail (an
// error inside the stream, a stream cut before [DONE]); the row says so
// with its reasons, is not validated, and the exit status is 1. A row
// whose answers are only capped by --max-tokens stays the reference's
// validated=false but exits 0.
func TestSweepPartialFailuresAreVisible(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	prompts := writeWorkloadFile(t, t.TempDir(), "mixed.json", `[
		[{"role": "user", "content": "Say hello."}],
		[{"role": "user", "content": "Say hello. [fixture:error-in-stream]"}],
		[{"role": "user", "content": "Say hello again."}],
		[{"role": "user", "content": "Say hello. [fixture:truncated]"}]
	]`)
	res := invoke(t, "--url", srv.URL, "--prompts", prompts, "--concurrency", "4", "--repetitions", "1", "--warmup", "0",
		"--skip-preflight-token-count", "--format", "json")
	assert.Equal(t, ExitFailed, res.code, "a row with failed requests fails the exit status")
	assert.Regexp(t, `mixed.json conc=4 rep=0: TTFT=\d+ms  TPS=[\d.]+  FAIL \(2 of 4 requests failed: `, res.stderr, "the row's line counts the failures")
	assert.Contains(t, res.stderr, "[DONE]", "and gives the first reasons (the cut stream)")
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rows), "the rows are written")
	require.Len(t, rows, 1)
	assert.Equal(t, false, rows[0]["validated"], "a row with failed requests is not validated")

	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0",
		"--max-tokens", "3", "--skip-preflight-token-count", "--format", "json")
	assert.Equal(t, ExitOK, res.code, "answers capped by --max-tokens are the expected result of a capped benchmark")
	assert.Contains(t, res.stderr, "answers capped by max_tokens", "the line says why the row is not validated")
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rows))
	assert.Equal(t, false, rows[0]["validated"], "validated stays the reference's (a length ending fails validate_response)")
}
