package resultio

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// writeJournal journals p's records (and cache events) at path.
func writeJournal(t *testing.T, path string, p *results.Payload) {
	t.Helper()
	j, err := CreateJournal(path, JournalHeaderFor(p))
	require.NoError(t, err, "create journal")
	for _, ev := range p.CachePolicy.Events {
		require.NoError(t, j.AppendCacheEvent(ev), "append cache event")
	}
	for _, r := range p.Results {
		require.NoError(t, j.Append(r), "append record")
	}
	require.NoError(t, j.Close(), "close")
}

func TestJournalRoundTripRebuildsThePayload(t *testing.T) {
	dir := t.TempDir()
	want := fixedPayload()
	path := JournalPath(filepath.Join(dir, "out.json"))
	assert.Equal(t, filepath.Join(dir, "out.json.journal.jsonl"), path, "name rule: <output>.journal.jsonl")
	writeJournal(t, path, want)

	data, err := os.ReadFile(path)
	require.NoError(t, err, "read")
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	assert.Len(t, lines, 1+len(want.CachePolicy.Events)+len(want.Results), "header, one line per cache event, one line per record")
	assert.True(t, IsJournal(data), "the header is recognized")

	h, recs, err := ReadJournal(path)
	require.NoError(t, err, "read journal")
	assert.Equal(t, JournalVersion, h.Version, "version")
	assert.Equal(t, "abcd1234", h.RunID, "run id")
	assert.Equal(t, 0, h.TornBytes, "no torn line")
	assert.Len(t, recs, len(want.Results), "every record")

	got, err := ReadJournalPayload(path)
	require.NoError(t, err, "payload")
	wantJSON, err := FormatJSON(want)
	require.NoError(t, err, "format want")
	require.NotNil(t, got.Incomplete, "a recovered payload says it is incomplete")
	assert.Equal(t, 3, got.Incomplete.Records, "with how many records it holds")
	assert.False(t, got.Summary.Passed, "and is not a passing verdict")
	got.Incomplete, got.Summary.Passed, got.Summary.QualityPassed = nil, want.Summary.Passed, want.Summary.QualityPassed
	gotJSON, err := FormatJSON(got)
	require.NoError(t, err, "format got")
	assert.Equal(t, string(wantJSON), string(gotJSON), "apart from that, the payload rebuilt from the journal renders exactly as the original")
}

func TestReadJournalDropsTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.journal.jsonl")
	p := fixedPayload()
	writeJournal(t, path, p)
	line, err := pyJSON(p.Results[0], jsonOpts{})
	require.NoError(t, err, "render")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err, "open")
	_, err = f.Write(line[:len(line)/2])
	require.NoError(t, err, "torn write")
	require.NoError(t, f.Close(), "close")

	h, recs, err := ReadJournal(path)
	require.NoError(t, err, "a torn last line is not an error")
	assert.Len(t, recs, len(p.Results), "the complete records survive, the torn one is dropped")
	assert.Equal(t, len(line)/2, h.TornBytes, "the dropped bytes are reported")
}

func TestReadJournalRejectsCorruptMiddleLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.journal.jsonl")
	writeJournal(t, path, fixedPayload())
	data, err := os.ReadFile(path)
	require.NoError(t, err, "read")
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[2] = []byte("{not json\n")
	require.NoError(t, os.WriteFile(path, bytes.Join(lines, nil), 0o644), "corrupt")
	_, _, err = ReadJournal(path)
	assert.ErrorIs(t, err, ErrBadJournal, "a corrupt line before the last is an error")
	assert.ErrorContains(t, err, path+": line 3: record", "names file and line")

	plain := filepath.Join(t.TempDir(), "p.json")
	require.NoError(t, os.WriteFile(plain, []byte(`{"results": []}`), 0o644), "payload")
	_, _, err = ReadJournal(plain)
	assert.ErrorIs(t, err, ErrBadJournal, "a payload is not a journal")
}

func TestCreateJournalKeepsAnEarlierJournal(t *testing.T) {
	dir := t.TempDir()
	path := JournalPath(filepath.Join(dir, "out.db"))
	first := fixedPayload()
	writeJournal(t, path, first)
	second := fixedPayload()
	second.RunID = "ffff0000"
	j, err := CreateJournal(path, JournalHeaderFor(second))
	require.NoError(t, err, "second journal")
	require.NoError(t, j.Close(), "close")
	assert.Equal(t, filepath.Join(dir, "out.db.journal.1.jsonl"), j.Displaced(), "the earlier journal was moved aside, not overwritten")

	h, recs, err := ReadJournal(j.Displaced())
	require.NoError(t, err, "read the earlier journal")
	assert.Equal(t, "abcd1234", h.RunID, "its run id")
	assert.Len(t, recs, len(first.Results), "its records are intact")
	h, recs, err = ReadJournal(path)
	require.NoError(t, err, "read the new journal")
	assert.Equal(t, "ffff0000", h.RunID, "the new run's header")
	assert.Empty(t, recs, "no records yet")

	require.NoError(t, j.Remove(), "remove")
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "Remove deletes the journal")
}

const journalKillEnv = "BENCHSERVE_TEST_JOURNAL_KILL"

// TestJournalKillHelper runs only in the child process of
// TestJournalSurvivesSIGKILL: it journals records and kills itself.
func TestJournalKillHelper(t *testing.T) {
	path := os.Getenv(journalKillEnv)
	if path == "" {
		t.Skip("child process of TestJournalSurvivesSIGKILL")
	}
	p := fixedPayload()
	j, err := CreateJournal(path, JournalHeaderFor(p))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		r := p.Results[0]
		r.CaseID = "case-" + strconv.Itoa(i)
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

func TestJournalSurvivesSIGKILL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json.journal.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestJournalKillHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), journalKillEnv+"="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the child was killed: %s", out)
	_, recs, err := ReadJournal(path)
	require.NoError(t, err, "the journal of a killed process reads")
	require.Len(t, recs, 50, "every record appended before SIGKILL survives")
	assert.Equal(t, "case-49", recs[49].CaseID, "in order")
}

// BenchmarkJournalAppend measures the cost of keeping one more finished
// record safe on disk after `records` earlier ones: appending a journal
// line (constant) versus rewriting the whole output (what keeping the
// output current after every case costs, linear in the records so far,
// so quadratic over a run).
//
// Run: go test -run '^$' -bench 'JournalAppend' -benchtime 20x ./results
func BenchmarkJournalAppend(b *testing.B) {
	rec := fixedRecords()[0]
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("journal/records=%d", n), func(b *testing.B) {
			j, err := CreateJournal(filepath.Join(b.TempDir(), "out.json.journal.jsonl"), JournalHeaderFor(fixedPayload()))
			require.NoError(b, err)
			defer j.Close()
			for range n {
				require.NoError(b, j.Append(rec))
			}
			for b.Loop() {
				if err := j.Append(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("rewrite/records=%d", n), func(b *testing.B) {
			p := fixedPayload()
			p.Results = make([]results.Record, n)
			for i := range p.Results {
				p.Results[i] = rec
			}
			path := filepath.Join(b.TempDir(), "out.json")
			for b.Loop() {
				p.Summary = results.Summarize(p.Results)
				if err := WriteFile(p, path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestJournalForADevice(t *testing.T) {
	assert.Equal(t, filepath.Join("out", "r.json.journal.jsonl"), JournalFor(filepath.Join("out", "r.json")), "next to an ordinary output")
	dev := JournalFor("/dev/null")
	assert.Equal(t, os.TempDir(), filepath.Dir(dev), "a device output journals in the temp directory, not in /dev")
	assert.Contains(t, filepath.Base(dev), "null.journal.jsonl")
	assert.Equal(t, os.TempDir(), filepath.Dir(JournalFor("")), "results to stdout journal in the temp directory")
}

// A load run's settings line puts the schedule, the shard and the
// expected count in the header, and the payload rebuilt from it has the
// schedule, so a recovered shard merges.
func TestJournalLoadLineAndSkippedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json.journal.jsonl")
	j, err := CreateJournal(path, JournalHeader{RunID: "r1", Timestamp: "2025-01-02T03:04:05+00:00", Workload: results.WorkloadInfo{Name: "w"}, Expected: 9})
	require.NoError(t, err)
	rate, share, idx := 4.0, 2.0, 1
	require.NoError(t, j.AppendLoad(&results.Schedule{Mode: "open", TargetRate: &share, RunRate: &rate, Shard: "1/2", Burstiness: 1}, &idx, 12))
	lag := 0.5
	for i := range 2 {
		require.NoError(t, j.Append(results.Record{RunID: "r1", CaseID: "a", Repetition: i, Shard: &idx, OK: true, LagMS: &lag,
			StartedAt: "2025-01-02T03:04:0" + strconv.Itoa(5+i) + "+00:00", Metrics: results.Metrics{E2ELms: 10}}))
	}
	require.NoError(t, j.Close())
	h, recs, err := ReadJournal(path)
	require.NoError(t, err)
	assert.Equal(t, 12, h.Expected, "the load's count, not cases × repetitions")
	require.NotNil(t, h.Schedule, "the settings")
	assert.Equal(t, "1/2", h.Schedule.Shard)
	require.NotNil(t, h.Shard)
	assert.Equal(t, 1, *h.Shard)
	p := h.Payload(recs)
	require.NotNil(t, p.Schedule, "the recovered payload has the schedule")
	assert.Equal(t, 2, p.Schedule.Sent, "sent: the records")
	assert.Contains(t, p.Schedule.Notes[len(p.Schedule.Notes)-1], "recovered from a journal", "what the records cannot tell is said")

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	require.NoError(t, os.WriteFile(path, []byte(lines[0]+lines[1]+"{not json\n"+strings.Join(lines[2:], "")), 0o644))
	_, _, err = ReadJournal(path)
	require.ErrorIs(t, err, ErrBadJournal, "strict by default")
	h, recs, err = ReadJournalWith(path, JournalReadOptions{SkipCorrupt: true})
	require.NoError(t, err, "skipping")
	assert.Len(t, recs, 2, "the good records")
	require.Len(t, h.Skipped, 1, "one skipped line")
	assert.True(t, strings.HasPrefix(h.Skipped[0], "line 3: record: "), "named: %s", h.Skipped[0])
	assert.Contains(t, h.Payload(recs).Incomplete.Reason, "1 corrupt journal lines skipped", "the payload says so")
}
