package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

func TestOutputEqualToAnInputIsRefusedBeforeAnythingRuns(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	body := `{"name":"w","cases":[{"id":"a","messages":[{"role":"user","content":"hi"}]}]}`
	w := writeWorkloadFile(t, dir, "w.json", body)
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(w, link), "setup: symlink")
	prompts := writeWorkloadFile(t, dir, "prompts.json", `[{"role":"user","content":"hi"}]`)
	system := writeWorkloadFile(t, dir, "system.txt", "be brief")
	trace := writeMooncake(t, dir, 4)
	sharegpt := writeWorkloadFile(t, dir, "sharegpt.json",
		`[{"conversations":[{"from":"human","value":"hi there"},{"from":"gpt","value":"hello to you"}]}]`)

	for _, tc := range []struct {
		name, input, want string
		args              []string
	}{
		{"workload", w, "--output " + w + " is the same file as --workload " + w, []string{"--workload", w, "--output", w}},
		{"workload via symlink", w, "is the same file as --workload " + w, []string{"--workload", w, "--output", link}},
		{"workload relative", w, "is the same file as --workload", []string{"--workload", w, "--output", filepath.Join(dir, ".", "sub", "..", "w.json")}},
		{"prompt set", prompts, "is the same file as --prompts " + prompts, []string{"--prompts", prompts, "--output", prompts}},
		{"prompt file", prompts, "is the same file as --prompt-file", []string{"--prompt-file", prompts, "--output", prompts}},
		{"system prompt file", system, "is the same file as --system-prompt-file", []string{"--system-prompt-file", system, "--output", system}},
		{"dataset path", trace, "is the same file as --dataset-path " + trace, []string{"--dataset-name", "mooncake", "--dataset-path", trace, "--output", trace}},
		{"capacity workload", w, "is the same file as --workload " + w, []string{"capacity", "--workload", w, "--slo", "ttft_p95_ms <= 500", "--output", w}},
		{"capacity dataset path", sharegpt, "is the same file as --dataset-path " + sharegpt,
			[]string{"capacity", "--dataset-name", "sharegpt", "--dataset-path", sharegpt, "--slo", "ttft_p95_ms <= 500", "--output", sharegpt}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := os.ReadFile(tc.input)
			require.NoError(t, err, "setup: read input")
			args := append([]string{"--url", srv.URL}, tc.args...)
			if tc.args[0] == "capacity" { // a subcommand comes first
				args = append([]string{"capacity", "--url", srv.URL}, tc.args[1:]...)
			}
			res := invoke(t, args...)
			assert.Equal(t, ExitUsage, res.code, "refused as an input error")
			assert.Contains(t, res.stderr, tc.want, "the message names both flags and the file")
			assert.Contains(t, res.stderr, "writing the results would destroy it", "says why")
			after, err := os.ReadFile(tc.input)
			require.NoError(t, err, "input still readable")
			assert.Equal(t, string(before), string(after), "the input is untouched")
		})
	}
	assert.Empty(t, srv.ChatRequests(), "nothing was sent")
}

func TestReportOutputEqualToAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	p := resultio.BuildPayload(resultio.PayloadInput{RunID: "abcd1234", Workload: results.WorkloadInfo{Name: "w"}})
	require.NoError(t, resultio.WriteFile(p, db), "setup: SQLite history")
	before, err := os.ReadFile(db)
	require.NoError(t, err, "setup")

	res := invoke(t, "report", db, "--output", db)
	assert.Equal(t, ExitUsage, res.code, "refused")
	assert.Contains(t, res.stderr, "--output "+db+" is the same file as the input "+db, "names the file")
	after, err := os.ReadFile(db)
	require.NoError(t, err, "history still there")
	assert.Equal(t, before, after, "the SQLite history was not replaced by HTML")
}

func TestOutOfRangeTimeoutsAreRefused(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"NaN", "want a finite number of seconds, got NaN"},
		{"Inf", "want a finite number of seconds, got +Inf"},
		{"1e300", "1e+300 s is too large (at most 9223372036 s"},
		{"1e-7", "1e-07 s is below the smallest timeout of 1 ms"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			for _, mode := range [][]string{{"--workload", smoke}, {"--prompts", "short"}} {
				res := invoke(t, append([]string{"--url", freeURL(t), "--request-timeout-s", tc.value}, mode...)...)
				assert.Equal(t, ExitUsage, res.code, "usage error in %s mode", mode[0])
				assert.Contains(t, res.stderr, "--request-timeout-s: "+tc.want, "clear message in %s mode", mode[0])
				assert.Contains(t, res.stderr, helpHint, "points at --help")
				assert.NotContains(t, res.stderr, "cannot reach", "refused before the server is contacted")
			}
		})
	}
	for _, ok := range []string{"0", "-5", "0.001", "300"} {
		res := invoke(t, "--url", freeURL(t), "--request-timeout-s", ok, "--workload", smoke)
		assert.NotContains(t, res.stderr, "--request-timeout-s", "%s is accepted", ok)
	}
}

func TestOutputDevNullStaysADevice(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	before, err := os.Stat(os.DevNull)
	require.NoError(t, err, "stat")
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--output", os.DevNull)
	assert.Equal(t, ExitOK, res.code, "the run writes its results into /dev/null")
	after, err := os.Stat(os.DevNull)
	require.NoError(t, err, "stat again")
	assert.NotZero(t, after.Mode()&os.ModeCharDevice, "/dev/null is still a character device")
	assert.True(t, os.SameFile(before, after), "and the same inode")
}

func TestRecoverWritesTheJournaledRecords(t *testing.T) {
	dir := t.TempDir()
	p := resultio.BuildPayload(resultio.PayloadInput{RunID: "feedbeef", Timestamp: "2025-01-02T03:04:05+00:00",
		Workload: results.WorkloadInfo{Name: "smoke", Repetitions: 1}, CacheMode: "preserve"})
	journal := resultio.JournalPath(filepath.Join(dir, "out.json"))
	j, err := resultio.CreateJournal(journal, resultio.JournalHeaderFor(p))
	require.NoError(t, err, "setup: journal")
	for _, id := range []string{"a", "b", "c"} {
		require.NoError(t, j.Append(results.Record{RunID: "feedbeef", CaseID: id, OK: true, Quality: results.Quality{OK: true},
			Metrics: results.Metrics{E2ELms: 10, TTFTms: 2}}), "setup: append")
	}
	require.NoError(t, j.Close(), "setup: close")
	f, err := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err, "setup")
	_, err = f.WriteString(`{"run_id": "feedbeef", "case_id": "d"`)
	require.NoError(t, err, "setup: torn line of the case in flight")
	require.NoError(t, f.Close(), "setup")

	out := filepath.Join(dir, "recovered.json")
	res := invoke(t, "recover", journal, "--output", out)
	require.Equal(t, ExitOK, res.code, "recovered")
	assert.Contains(t, res.stderr, "Recovered 3 records, run feedbeef", "says how many")
	assert.Contains(t, res.stderr, "Dropped an incomplete last line of 37 bytes", "reports the torn line")
	got := readPayload(t, out)
	assert.Equal(t, "feedbeef", got.RunID, "run id from the journal")
	require.Len(t, got.Results, 3, "the finished records, nothing invented")
	assert.Equal(t, 3, got.Summary.CaseCount, "summarized")

	csv := filepath.Join(dir, "recovered.csv")
	res = invoke(t, "recover", journal, "--output", csv)
	require.Equal(t, ExitOK, res.code, "any format by extension")
	data, err := os.ReadFile(csv)
	require.NoError(t, err, "csv written")
	assert.Equal(t, 4, strings.Count(string(data), "\r\n"), "header and three rows")

	res = invoke(t, "recover", journal)
	require.Equal(t, ExitOK, res.code, "to stdout")
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &doc), "JSON on stdout")

	res = invoke(t, "recover", journal, "--output", journal)
	assert.Equal(t, ExitUsage, res.code, "the journal is never overwritten")
	res = invoke(t, "recover", filepath.Join(dir, "missing.jsonl"))
	assert.Equal(t, ExitUsage, res.code, "a missing journal is an input error")

	res = invoke(t, "report", journal, "--output", filepath.Join(dir, "r.html"))
	assert.Equal(t, ExitOK, res.code, "the report reads a journal too")
	assert.Contains(t, res.stdout, "(1 run)", "one run")
}

func TestURLCredentialsNeverPrinted(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	secretURL := strings.Replace(srv.URL, "http://", "http://alice:s3cr3t-pw@", 1) + "/v1"
	out := filepath.Join(t.TempDir(), "out.json")
	res := invoke(t, "--url", secretURL, "--workload", smoke, "--repetitions", "1", "--output", out)
	require.Equal(t, ExitOK, res.code, "the fixture ignores basic auth")
	data, err := os.ReadFile(out)
	require.NoError(t, err, "output")
	for what, text := range map[string]string{"stdout": res.stdout, "stderr": res.stderr, "output file": string(data)} {
		assert.NotContains(t, text, "s3cr3t-pw", "no password in %s", what)
	}

	// Errors quoting the URL: an unreachable server, a bad URL.
	dead := strings.Replace(freeURL(t), "http://", "http://alice:s3cr3t-pw@", 1)
	for _, u := range []string{dead, dead + "/?token=t0ps3cret", "ftp://alice:s3cr3t-pw@host"} {
		res := invoke(t, "--url", u, "--workload", smoke)
		assert.NotEqual(t, ExitOK, res.code, "fails")
		assert.NotContains(t, res.stderr, "s3cr3t-pw", "no password in the error for %s", serverinfoRedact(u))
		assert.NotContains(t, res.stderr, "t0ps3cret", "no token in the error")
		assert.Contains(t, res.stderr, "alice", "the user name stays, to recognise the URL")
	}
}

func serverinfoRedact(u string) string { return strings.ReplaceAll(u, "s3cr3t-pw", "…") }

func TestWriteFallbackNeverOverwritesAnEarlierOne(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs.json")
	first, err := resultio.KeepPartial(out, []byte(`{"run":1}`))
	require.NoError(t, err, "first fallback")
	assert.Equal(t, out+".partial.json", first, "the usual name first")
	second, err := resultio.KeepPartial(out, []byte(`{"run":2}`))
	require.NoError(t, err, "second fallback")
	assert.Equal(t, out+".partial.2.json", second, "a second failing run gets a new name")
	data, err := os.ReadFile(first)
	require.NoError(t, err, "first still there")
	assert.Equal(t, `{"run":1}`, string(data), "the first run's results were not overwritten")
}
