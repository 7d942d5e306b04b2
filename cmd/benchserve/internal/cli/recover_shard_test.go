package cli

import (
	"context"
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
	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
)

// Shard 0 of this workload gets cases a, hang, a (global requests 0, 2,
// 4 of 4 cases), shard 1 gets b, c, b: shard 0 never finishes.
const hangingShardWorkload = `{"name": "shards", "cases": [
	{"id": "a", "messages": [{"role": "user", "content": "Say hello."}]},
	{"id": "b", "messages": [{"role": "user", "content": "Say hello again."}]},
	{"id": "hang", "messages": [{"role": "user", "content": "[fixture:hang]"}]},
	{"id": "c", "messages": [{"role": "user", "content": "Say goodbye."}]}]}`

// A shard killed with SIGKILL leaves a journal that recovers into a
// payload merge accepts (marked incomplete): the run is not lost. The
// journal's header says the shard and the load, so recover counts the
// requests the shard was to send; recovering into a history twice does
// not append the run twice; a corrupt line in the middle is skipped with
// a warning naming it, or refused with --strict.
func TestKilledShardRecoversIntoAMergeablePayload(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	w := writeWorkloadFile(t, dir, "w.json", hangingShardWorkload)
	load := []string{"--url", srv.URL, "--workload", w, "--request-rate", "50", "--num-prompts", "6", "--seed", "2", "--run-id", "0badc0de"}

	s1 := filepath.Join(dir, "shard-1.json")
	res := invoke(t, append(load, "--shard", "1/2", "--output", s1)...)
	require.Equal(t, ExitOK, res.code, "shard 1 finishes")

	s0out := filepath.Join(dir, "shard-0.json")
	cmd := exec.CommandContext(t.Context(), os.Args[0], append(load, "--shard", "0/2", "--output", s0out)...)
	cmd.Env = append(os.Environ(), cliChildEnv+"=1")
	require.NoError(t, cmd.Start(), "start shard 0")
	journal := resultio.JournalPath(s0out)
	require.Eventually(t, func() bool {
		_, recs, err := resultio.ReadJournal(journal)
		return err == nil && len(recs) == 2
	}, 2*time.Minute, 10*time.Millisecond, "shard 0 journals its two finished requests")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL), "kill -9 shard 0 while its hanging request is in flight")
	_ = cmd.Wait()
	require.NoFileExists(t, s0out, "shard 0 wrote no output")

	recovered := filepath.Join(dir, "shard-0.recovered.json")
	res = invoke(t, "recover", journal, "--output", recovered)
	require.Equal(t, ExitOK, res.code, "recover")
	assert.Contains(t, res.stderr, "Recovered 2 records of the 3 requests shard 0/2 was to send", "the expected count is the shard's requests")
	p := readPayload(t, recovered)
	require.NotNil(t, p.Schedule, "the recovered payload has the schedule")
	assert.Equal(t, "0/2", p.Schedule.Shard, "and the shard")
	require.NotNil(t, p.Incomplete, "marked incomplete")

	merged := filepath.Join(dir, "merged.json")
	code, stdout, stderr := runCLI("merge", merged, recovered, s1)
	require.Equal(t, ExitOK, code, "merge accepts the recovered shard: %s", stderr)
	assert.Contains(t, stdout, "5 records from 2 payloads (2 shards)", "both shards' records")
	assert.Contains(t, stderr, "merged from incomplete payloads ("+recovered+")", "the merge says a shard is incomplete")
	mp := readPayload(t, merged)
	assert.False(t, mp.Summary.Passed, "an incomplete run does not pass")

	db := filepath.Join(dir, "history.db")
	for range 2 {
		res = invoke(t, "recover", journal, "--output", db)
		require.Equal(t, ExitOK, res.code, "recover into a history")
	}
	rows, err := history.ReadRows(context.Background(), db, resultio.WorkloadTable)
	require.NoError(t, err)
	assert.Len(t, rows, 2, "recovered twice, appended once")

	data, err := os.ReadFile(journal)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	require.GreaterOrEqual(t, len(lines), 4, "header, load line, two records")
	damaged := filepath.Join(dir, "damaged.journal.jsonl")
	corrupt := strings.Join(lines[:3], "") + "{\"run_id\": \"0badc0de\", garbage\n" + strings.Join(lines[3:], "")
	require.NoError(t, os.WriteFile(damaged, []byte(corrupt), 0o644))
	res = invoke(t, "recover", damaged, "--output", filepath.Join(dir, "d.json"))
	require.Equal(t, ExitOK, res.code, "a corrupt middle line does not lose the journal")
	assert.Contains(t, res.stderr, damaged+": skipped a corrupt line 4: record:", "the warning names the line")
	assert.Len(t, readPayload(t, filepath.Join(dir, "d.json")).Results, 2, "every good record recovered")
	res = invoke(t, "recover", damaged, "--strict", "--output", filepath.Join(dir, "s.json"))
	assert.Equal(t, ExitUsage, res.code, "--strict refuses")
	assert.Contains(t, res.stderr, "line 4: record:", "and names the line")
}
