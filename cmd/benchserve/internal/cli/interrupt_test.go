package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// slowWorkload has two quick cases and a third that hangs until the run
// is stopped.
const slowWorkload = `{"name": "stop-me", "cases": [
	{"id": "a", "messages": [{"role": "user", "content": "Say hello."}]},
	{"id": "b", "messages": [{"role": "user", "content": "Say hello again."}]},
	{"id": "hang", "messages": [{"role": "user", "content": "[fixture:hang]"}]}]}`

// TestCtrlCKeepsFinishedCasesAndMarksTheOneInFlight: a run stopped while
// a request is in flight writes the finished cases, and the one in flight
// is marked interrupted and left out of the statistics (not a failed
// measurement of the server).
func TestCtrlCKeepsFinishedCasesAndMarksTheOneInFlight(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	w := writeWorkloadFile(t, dir, "w.json", slowWorkload)
	out := filepath.Join(dir, "out.json")
	code, _, stderr := runCtrlC(t, srv, 50*time.Millisecond, "--url", srv.URL, "--workload", w, "--repetitions", "1", "--output", out)
	t.Logf("stderr:\n%s", stderr.String())
	assert.Equal(t, ExitFailed, code, "an interrupted run exits 1")
	p := readPayload(t, out)
	require.Len(t, p.Results, 3, "the finished cases and the interrupted one are written")
	assert.True(t, p.Results[0].OK && p.Results[1].OK, "the finished cases passed")
	last := p.Results[2]
	assert.True(t, last.Interrupted, "the case in flight is marked interrupted")
	assert.Equal(t, []string{results.IssueInterrupted}, last.Quality.Issues, "and says so")
	assert.Equal(t, 2, p.Summary.CaseCount, "it is left out of the counts")
	assert.NoFileExists(t, resultio.JournalPath(out), "the output was written: no journal left")
}

// TestSIGKILLLeavesTheJournal: a CLI process killed mid-run (no handler
// can run) leaves every finished case in the output's journal, which
// benchserve recover turns into a results file.
func TestSIGKILLLeavesTheJournal(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	w := writeWorkloadFile(t, dir, "w.json", slowWorkload)
	out := filepath.Join(dir, "out.json")
	cmd := cliProcess(t, "--url", srv.URL, "--workload", w, "--repetitions", "1", "--output", out)
	require.NoError(t, cmd.Start(), "start the CLI")
	awaitChatRequests(t, srv, 3)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL), "kill -9 mid-run")
	_ = cmd.Wait()
	assert.NoFileExists(t, out, "no output was written")
	journal := resultio.JournalPath(out)
	p, err := resultio.ReadJournalPayload(journal)
	require.NoError(t, err, "the journal holds the finished cases")
	require.Len(t, p.Results, 2, "both finished cases, nothing invented for the one in flight")
	assert.Equal(t, []string{"a", "b"}, []string{p.Results[0].CaseID, p.Results[1].CaseID})

	recovered := filepath.Join(dir, "recovered.json")
	res := invoke(t, "recover", journal, "--output", recovered)
	require.Equal(t, ExitOK, res.code, "recover writes the results file")
	assert.Len(t, readPayload(t, recovered).Results, 2)
	_, err = os.Stat(journal)
	assert.NoError(t, err, "recover leaves the journal where it was")
}

// cliProcess is a benchserve process: this test binary run as the CLI
// (cliChildEnv), so no test waits for a go build of the binary.
func cliProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), cliChildEnv+"=1")
	return cmd
}

// awaitChatRequests waits until srv has had n chat requests, up to a bound
// far above what a busy machine needs (the process starts and sends in
// well under a second when idle).
func awaitChatRequests(t *testing.T, srv *fixtures.Server, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return len(srv.ChatRequests()) >= n }, 2*time.Minute, 10*time.Millisecond,
		"the benchserve process sends %d chat requests", n)
}

// TestSIGKILLedSweepLeavesRowsInItsJournal: a prompt sweep killed while a
// point is in flight leaves its journal, and benchserve recover turns it
// into the rows of the points that finished (the point in flight is
// absent).
func TestSIGKILLedSweepLeavesRowsInItsJournal(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	quick := writeWorkloadFile(t, dir, "quick.json", `[{"role": "user", "content": "Say hello."}]`)
	hang := writeWorkloadFile(t, dir, "hang.json", `[{"role": "user", "content": "[fixture:hang]"}]`)
	out := filepath.Join(dir, "rows.csv")
	cmd := cliProcess(t, "--url", srv.URL, "--prompts", quick+","+hang, "--concurrency", "1", "--repetitions", "2",
		"--warmup", "0", "--skip-preflight-token-count", "--output", out)
	require.NoError(t, cmd.Start(), "start the CLI")
	awaitChatRequests(t, srv, 3)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL), "kill -9 mid-sweep")
	_ = cmd.Wait()
	assert.NoFileExists(t, out, "no output was written")
	journal := resultio.JournalPath(out)

	res := invoke(t, "recover", journal, "--output", filepath.Join(dir, "recovered.json"))
	require.Equal(t, ExitOK, res.code, "recover writes the rows")
	data, err := os.ReadFile(filepath.Join(dir, "recovered.json"))
	require.NoError(t, err)
	var rows []results.SweepResult
	require.NoError(t, json.Unmarshal(data, &rows), "the recovered file is the sweep's JSON rows")
	require.Len(t, rows, 2, "the two finished points of the quick set; the hung point is absent")
	for i, r := range rows {
		assert.Equal(t, quick, r.PromptSet, "row %d", i)
		assert.Equal(t, i, r.Repetition, "row %d", i)
		assert.True(t, r.Validated, "row %d", i)
		assert.Positive(t, r.E2ELms, "row %d is measured", i)
	}
	assert.Contains(t, res.stderr, "Recovered 2 sweep rows")
}

// TestCtrlCInALoadRunCountsTheUnsent: Ctrl-C in a closed-loop load run
// (--num-prompts 12 --max-concurrency 1, the third request hangs) leaves
// the requests never sent counted in the line and the payload, and the
// run shows as interrupted, not as one that sent everything.
func TestCtrlCInALoadRunCountsTheUnsent(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	w := writeWorkloadFile(t, dir, "w.json", slowWorkload)
	out := filepath.Join(dir, "out.json")
	code, _, stderr := runCtrlC(t, srv, 0, "--url", srv.URL, "--workload", w, "--num-prompts", "12", "--max-concurrency", "1", "--output", out)
	t.Logf("stderr:\n%s", stderr.String())
	assert.Equal(t, ExitFailed, code, "an interrupted run exits 1")
	p := readPayload(t, out)
	sc := p.Schedule
	require.NotNil(t, sc)
	assert.Equal(t, 3, sc.Sent, "two answered, the third in flight")
	assert.Equal(t, 9, sc.Unsent, "the 9 never sent")
	assert.Equal(t, 12, sc.Requests, "sent and unsent make the run's count")
	assert.Equal(t, "interrupted (context canceled) after 3 of 12 requests were sent", sc.StopReason)
	assert.Contains(t, stderr.String(), " dropped, 9 unsent, ", "the line counts them")
	assert.Contains(t, stderr.String(), "Error: the run was stopped early: interrupted (context canceled) after 3 of 12 requests were sent; 9 requests were not sent\n")
}

// runCtrlC runs the CLI with args and cancels it, as Ctrl-C does
// (signal.NotifyContext), once srv has seen 3 chat requests and after
// wait more.
func runCtrlC(t *testing.T, srv *fixtures.Server, wait time.Duration, args ...string) (code int, stdout, stderr *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for len(srv.ChatRequests()) < 3 {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(wait)
		cancel()
	}()
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	code = run(ctx, args, &env{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr, getenv: func(string) string { return "" }})
	return code, stdout, stderr
}
