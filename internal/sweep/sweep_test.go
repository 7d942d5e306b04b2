package sweep_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/sweep"
	"github.com/benchserve/benchserve/results"
)

// chats returns the recorded chat completion bodies, split into streamed
// and non-streamed (preflight) ones.
func chats(s *fixtures.Server) (streamed, plain []map[string]any) {
	for _, r := range s.ChatRequests() {
		if r.Body["stream"] == true {
			streamed = append(streamed, r.Body)
		} else {
			plain = append(plain, r.Body)
		}
	}
	return streamed, plain
}

func TestRunAgainstFixture(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	var progress reports
	rows, _, err := runSweep(t, context.Background(), srv.URL, "", sweep.Config{
		PromptSets:    []string{"short"},
		Concurrencies: []int{1, 3},
		Repetitions:   2,
		Warmup:        1,
		MaxTokens:     200,
		Tag:           "ci",
		Overrides:     []sweep.Override{{Field: "chip", Value: "TestChip"}},
		Report:        progress.reporter(),
	})
	require.NoError(t, err, "sweep against the fixture")
	require.Len(t, rows, 4, "1 prompt set x 2 concurrencies x 2 repetitions")

	wantConc := []int{1, 1, 3, 3}
	wantRep := []int{0, 1, 0, 1}
	for i, r := range rows {
		assert.Equal(t, "short", r.PromptSet, "row %d prompt set", i)
		assert.Equal(t, wantConc[i], r.Concurrency, "row %d concurrency", i)
		assert.Equal(t, wantRep[i], r.Repetition, "row %d repetition", i)
		assert.Equal(t, 200, r.MaxTokens, "row %d max_tokens", i)
		assert.Equal(t, "ci", r.Tag, "row %d tag", i)
		assert.Equal(t, "TestChip", r.Chip, "row %d chip override", i)
		assert.Equal(t, fixtures.DefaultModel, r.ModelID, "row %d model auto-detected", i)
		assert.True(t, r.Validated, "row %d validated", i)
		assert.Greater(t, r.TTFTms, 0.0, "row %d ttft", i)
		assert.Greater(t, r.E2ELms, r.TTFTms, "row %d e2e > ttft", i)
		assert.Greater(t, r.GenTPS, 0.0, "row %d gen_tps", i)
		assert.Greater(t, r.ThroughputTPS, 0.0, "row %d throughput", i)
		assert.Greater(t, r.RequestsPerS, 0.0, "row %d requests_per_s", i)
		// requests_per_s = concurrency / slowest e2e; the slowest e2e is at
		// least the mean e2e, so rps <= conc / mean e2e.
		assert.LessOrEqual(t, r.RequestsPerS, float64(r.Concurrency)/(r.E2ELms/1000)*1.0000001, "row %d rps bounded by concurrency/mean e2e", i)
		assert.Nil(t, r.EnableThinking, "row %d enable_thinking unset", i)
		assert.Equal(t, "", r.ExtraBody, "row %d extra body", i)
	}
	assert.Equal(t, rows[0].RunID, rows[3].RunID, "one run id for the sweep")
	assert.Len(t, rows[0].RunID, 8, "run id is 8 hex digits")

	first, err := sweep.LoadPromptSet("short")
	require.NoError(t, err)
	assert.Equal(t, fixtures.PromptTokens(first[0]), rows[0].PromptTokens, "prompt_tokens from the preflight count of the first prompt")

	streamed, plain := chats(srv)
	require.Len(t, plain, 1, "one preflight request per prompt set")
	assert.EqualValues(t, 1, plain[0]["max_tokens"], "preflight uses max_tokens=1")
	// warmups: 1 (conc 1) + 3 (conc 3); measured: 1+1+3+3.
	assert.Len(t, streamed, 4+8, "warmup and measured streaming requests")
	contents := map[any]int{}
	for _, b := range streamed[len(streamed)-3:] {
		msgs := b["messages"].([]any)
		contents[msgs[0].(map[string]any)["content"]]++
		assert.EqualValues(t, 200, b["max_tokens"], "max_tokens sent")
	}
	assert.Len(t, contents, 3, "concurrency 3 picks three different prompts round-robin")

	require.Len(t, progress.started, 1, "one start report")
	st := progress.started[0]
	assert.Equal(t, srv.URL, st.URL, "report: the server")
	assert.Equal(t, fixtures.DefaultModel, st.Model, "report: the model")
	assert.Equal(t, 4, st.Points, "report: total runs")
	assert.Equal(t, 1, st.Warmup, "report: warmup per config")
	require.Len(t, progress.points, 4, "one report per point")
	last := progress.points[3]
	assert.Equal(t, "short conc=3 rep=1", sweep.Label(last.pt), "report: the point")
	assert.True(t, last.o.OK(), "report: the point passed")
	assert.Positive(t, last.o.Row.TTFTms, "report: the row's TTFT")
}

func TestRunSystemPromptAndSkipPreflight(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	sysFile := writeFile(t, "sys.txt", "You are terse.")
	multi := writeFile(t, "multi.json", `[[{"role":"system","content":"own"},{"role":"user","content":"hello there"}],[{"role":"user","content":"second prompt"}]]`)
	var progress reports
	rows, _, err := runSweep(t, context.Background(), srv.URL, "", sweep.Config{
		PromptSets: []string{multi}, Concurrencies: []int{2}, Repetitions: 1,
		SystemPromptFile: sysFile, SkipPreflightTokenCount: true, Report: progress.reporter(),
	})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	streamed, plain := chats(srv)
	assert.Empty(t, plain, "no preflight request when skipped")
	require.Len(t, streamed, 2)
	var firsts []string
	for _, b := range streamed {
		msgs := b["messages"].([]any)
		firsts = append(firsts, msgs[0].(map[string]any)["content"].(string))
		assert.Len(t, msgs, 2, "each prompt has exactly one system message then the user")
	}
	assert.ElementsMatch(t, []string{"own", "You are terse."}, firsts, "system prepended only where absent")
	require.Len(t, progress.started, 1)
	assert.Contains(t, progress.started[0].Notes, "System prompt prepended from "+sysFile+" (14 chars)", "report: system prompt note")
	want := fixtures.PromptTokens([]map[string]any{{"role": "system", "content": "own"}, {"role": "user", "content": "hello there"}})
	assert.Equal(t, want, rows[0].PromptTokens, "without preflight, prompt_tokens comes from the first measured request's usage")
}

func TestRunAllErrored(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Status: 500}
	}})
	var progress reports
	rows, _, err := runSweep(t, context.Background(), srv.URL, "", sweep.Config{
		PromptSets: []string{"short"}, Concurrencies: []int{2}, Repetitions: 1, Report: progress.reporter(),
	})
	require.NoError(t, err, "request failures are rows, not errors")
	require.Len(t, rows, 1)
	r := rows[0]
	assert.False(t, r.Validated, "all-errored config is not validated")
	assert.Zero(t, r.TTFTms, "ttft zero")
	assert.Zero(t, r.E2ELms, "e2e zero")
	assert.Zero(t, r.ThroughputTPS, "throughput zero")
	assert.Zero(t, r.CacheHits, "cache zero")
	assert.Equal(t, 2, r.Concurrency, "config kept")
	assert.Zero(t, r.PromptTokens, "preflight failed (HTTP 500) so prompt_tokens is 0")
	require.Len(t, progress.points, 1)
	o := progress.points[0].o
	assert.Equal(t, 2, o.Failed, "report: both requests failed")
	require.NotEmpty(t, o.Reasons)
	assert.True(t, strings.HasPrefix(o.Reasons[0], "stream: HTTP 500: "), "report: the reason: %q", o.Reasons[0])
}

func TestRunPartlyInvalid(t *testing.T) {
	var mu sync.Mutex
	n := 0
	srv := fixtures.Start(t, fixtures.Options{Responder: func(req fixtures.Request) fixtures.Script {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			return fixtures.Script{Content: []string{"x"}, FinishReason: "length"}
		}
		return fixtures.Script{Content: []string{"fine"}}
	}})
	rows, _, err := runSweep(t, context.Background(), srv.URL, fixtures.DefaultModel, sweep.Config{
		PromptSets: []string{"short"}, Concurrencies: []int{1}, Repetitions: 2,
		SkipPreflightTokenCount: true,
	})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.False(t, rows[0].Validated, "a truncated response fails validation")
	assert.True(t, rows[1].Validated, "the next run passes")

	rows, _, err = runSweep(t, context.Background(), srv.URL, fixtures.DefaultModel, sweep.Config{
		PromptSets: []string{"short"}, Concurrencies: []int{1}, Repetitions: 1,
		SkipPreflightTokenCount: true, NoValidate: true,
	})
	require.NoError(t, err)
	assert.True(t, rows[0].Validated, "NoValidate reports validated")
}

func TestRunInputErrors(t *testing.T) {
	_, _, err := runSweep(t, context.Background(), "http://127.0.0.1:1", "", sweep.Config{
		PromptSets:       []string{"short"},
		ExtraBodies:      []string{`{"a":1}`, `not json`},
		Overrides:        []sweep.Override{{Field: "nope", Value: "1"}},
		SystemPromptFile: "/nonexistent/sys.txt",
		Concurrencies:    []int{0},
	})
	require.ErrorIs(t, err, sweep.ErrInput, "inputs are checked before any request")
	for _, want := range []string{"extra body 1", "unknown result field", "--system-prompt-file not found", "concurrency must be at least 1"} {
		assert.Contains(t, err.Error(), want, "every problem is reported")
	}
	assert.ErrorIs(t, err, sweep.ErrUnknownField)

	var progress reports
	_, _, err = runSweep(t, context.Background(), "http://127.0.0.1:1", "", sweep.Config{PromptSets: []string{"/nonexistent/p.json"}, Report: progress.reporter()})
	require.ErrorIs(t, err, sweep.ErrInput)
	assert.Contains(t, err.Error(), "no prompt sets could be loaded", "all sets missing")
	assert.Empty(t, progress.started, "nothing is sent or reported for input errors")
	assert.Empty(t, progress.points, "nothing is sent or reported for input errors")
}

func TestRunSkipsMissingPromptSet(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	var progress reports
	rows, _, err := runSweep(t, context.Background(), srv.URL, "", sweep.Config{
		PromptSets: []string{"short", "/nonexistent/p.json"}, Concurrencies: []int{1}, Repetitions: 1, Report: progress.reporter(),
	})
	require.NoError(t, err, "a missing prompt set is skipped with a warning, as in the reference")
	assert.Len(t, rows, 1)
	require.Len(t, progress.started, 1)
	notes := strings.Join(progress.started[0].Notes, "\n")
	assert.Contains(t, notes, "Warning: skipping prompt set '/nonexistent/p.json': unknown prompt set name or missing file", "warning note")
	assert.False(t, strings.Contains(notes, "prompt set not found"), "sentinel text not repeated")
}

func TestRunCancelled(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rows, _, err := runSweep(t, ctx, srv.URL, fixtures.DefaultModel, sweep.Config{PromptSets: []string{"short"}, SkipPreflightTokenCount: true})
	assert.ErrorIs(t, err, context.Canceled, "cancellation is reported")
	assert.Empty(t, rows, "nothing measured")
}

func TestRunNormalizesURL(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	var progress reports
	rows, _, err := runSweep(t, context.Background(), srv.URL+"/v1/", "", sweep.Config{
		PromptSets: []string{"short"}, Concurrencies: []int{1},
		Repetitions: 1, Warmup: 0, MaxTokens: 200, SkipPreflightTokenCount: true, Report: progress.reporter(),
	})
	require.NoError(t, err, "an OpenAI-style .../v1/ base URL is accepted")
	require.Len(t, rows, 1)
	assert.True(t, rows[0].Validated, "requests reached /v1/chat/completions, not /v1/v1/…")
	require.Len(t, progress.started, 1)
	assert.Equal(t, srv.URL, progress.started[0].URL, "the normalized URL is reported")

	_, err = runner.New(context.Background(), runner.Config{URL: "127.0.0.1:8080"})
	require.Error(t, err, "a URL without a scheme is refused by the engine, before any request")
	assert.Contains(t, err.Error(), "want http:// or https://", "the problem says what a URL needs")
}

func TestValidateMarksFileProblems(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"not":"a list"}`), 0o644))
	err := sweep.Validate(sweep.Config{PromptSets: []string{bad}})
	require.Error(t, err, "a prompt set that does not parse")
	assert.ErrorIs(t, err, sweep.ErrInput)
	assert.ErrorIs(t, err, sweep.ErrInputFile, "a prompt file's content problem is marked as a file problem")

	err = sweep.Validate(sweep.Config{PromptSets: []string{"short"}, SystemPromptFile: filepath.Join(t.TempDir(), "missing.txt")})
	assert.ErrorIs(t, err, sweep.ErrInputFile, "a missing system prompt file is a file problem")

	err = sweep.Validate(sweep.Config{PromptSets: []string{"short"}, ExtraBodies: []string{"{nope}"}})
	assert.ErrorIs(t, err, sweep.ErrInput)
	assert.NotErrorIs(t, err, sweep.ErrInputFile, "a bad extra body is a value problem")
}

// runSweep runs cfg on the server at url through the one engine
// (runner.New, then sweep.Run), after the input validation the CLI does
// first; it returns the rows and their outcomes.
func runSweep(t *testing.T, ctx context.Context, url, model string, cfg sweep.Config) ([]results.SweepResult, []sweep.Outcome, error) {
	t.Helper()
	if err := sweep.Validate(cfg); err != nil {
		return nil, nil, err
	}
	r, err := runner.New(ctx, runner.Config{URL: url, Model: model})
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(r.Close)
	outs, err := sweep.Run(ctx, r, cfg)
	rows := make([]results.SweepResult, len(outs))
	for i, o := range outs {
		rows[i] = o.Row
	}
	return rows, outs, err
}

// reports records what a sweep reported (sweep.Reporter).
type reports struct {
	started []sweep.Started
	points  []reportedPoint
}

type reportedPoint struct {
	pt sweep.Point
	o  sweep.Outcome
}

func (r *reports) reporter() sweep.Reporter {
	return sweep.Reporter{
		Started:  func(s sweep.Started) { r.started = append(r.started, s) },
		Finished: func(pt sweep.Point, o sweep.Outcome) { r.points = append(r.points, reportedPoint{pt, o}) },
	}
}
