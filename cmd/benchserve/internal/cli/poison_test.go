package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// poison is what a hostile or broken server can put in a model name or an
// error body: an OSC title ended by BEL, a hidden-text SGR, a CR that
// returns to the start of the line followed by a fake verdict, and a
// right-to-left override; poisonModel adds 10 KB to it.
const poison = "evil\x1b]0;title\x07\x1b[8m\r  ok PASS\u202eright"

// poisonShown is poison as a door shows it.
const poisonShown = `evil\x1b]0;title\a\x1b[8m\r  ok PASS\u202eright`

var poisonModel = "m-" + poison + strings.Repeat("m", 10_000)

// poisonServer lists poisonModel and answers every chat completion with
// HTTP 500, its JSON error message holding poison.
func poisonServer(t *testing.T) *fixtures.Server {
	t.Helper()
	body, err := json.Marshal(map[string]any{"error": map[string]any{"message": "boom " + poison}})
	require.NoError(t, err, "setup: error body")
	return fixtures.Start(t, fixtures.Options{Model: poisonModel, Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Status: 500, ErrorBody: string(body)}
	}})
}

// poisonWorkload's case id and name hold terminal controls too (a
// workload file is the user's, and may be someone else's).
const poisonWorkload = `{"name": "w\u001b[2Kname", "cases": [{"id": "case\u001b[2K\u202eid", "messages": [{"role": "user", "content": "hi"}]}]}`

// assertSafe checks what one door printed: no raw control, bidi or format
// character (but newline and tab), and, in what is text for a person
// (data, the results on stdout, is kept whole), the 10 KB model name
// never shown whole.
func assertSafe(t *testing.T, door, text, data string) {
	t.Helper()
	for i, r := range text + data {
		if r != '\n' && r != '\t' && present.Unsafe(r) {
			out := text + data
			assert.Failf(t, "a raw control character reached the terminal", "%s: %U at byte %d: %q", door, r, i, out[max(0, i-60):min(len(out), i+60)])
			return
		}
	}
	assert.NotContains(t, text, strings.Repeat("m", present.MessageLimit), "%s: the 10 KB model name is cut", door)
}

// TestPoisonedServerThroughEveryDoor runs a server whose model name and
// error bodies hold ESC, CR, BEL, OSC and U+202E through every command
// that shows what it says: nothing raw reaches stdout or stderr, the
// escapes are visible, the model name is cut, and the JSON payload keeps
// every byte.
func TestPoisonedServerThroughEveryDoor(t *testing.T) {
	srv := poisonServer(t)
	dir := t.TempDir()
	w := writeWorkloadFile(t, dir, "w.json", poisonWorkload)
	out := filepath.Join(dir, "o.json")

	res := invoke(t, "--url", srv.URL, "--workload", w, "--repetitions", "1", "--output", out)
	assert.Equal(t, ExitFailed, res.code, "workload: every request failed")
	assertSafe(t, "workload", res.stdout+res.stderr, "")
	assert.Contains(t, res.stderr, "request error: HTTP 500: boom "+poisonShown, "workload: the server's message, escaped, in the user's words")
	assert.Contains(t, res.stderr, `case\x1b[2K\u202eid ... `, "workload: the case id's controls are visible")
	p := readPayload(t, out)
	require.Len(t, p.Results, 1, "workload: one record")
	assert.Equal(t, poisonModel, p.Results[0].ModelID, "the payload keeps the model name whole")
	assert.Contains(t, p.Results[0].Error, "boom "+poison, "and the server's message byte for byte")

	res = invoke(t, "--url", srv.URL, "--workload", w, "--repetitions", "1")
	assertSafe(t, "workload, JSON on stdout", res.stderr, res.stdout)
	var onStdout results.Payload
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &onStdout), "the payload on stdout is JSON: %.300s", res.stdout)
	assert.Equal(t, poisonModel, onStdout.Results[0].ModelID, "and decodes to the whole model name (its controls are \\u escapes)")

	res = invoke(t, "--url", srv.URL, "--workload", w, "--request-rate", "100", "--num-prompts", "3", "--output", filepath.Join(dir, "load.json"))
	assert.Equal(t, ExitFailed, res.code, "load: every request failed")
	assertSafe(t, "load", res.stdout+res.stderr, "")
	assert.Contains(t, res.stderr, "boom "+poisonShown, "load: the server's message is visible")

	res = invoke(t, "conformance", "--url", srv.URL, "--case-tag", "stream", "--output", filepath.Join(dir, "conf.json"))
	assert.Equal(t, ExitFailed, res.code, "conformance: every contract fails")
	assertSafe(t, "conformance", res.stdout+res.stderr, "")
	assert.Contains(t, res.stdout, `model "m-`+poisonShown, "conformance: the model's controls are visible")
	assert.Contains(t, res.stdout, "…(+", "conformance: the model name is cut with a mark")
	for _, l := range strings.Split(res.stdout, "\n") {
		if strings.HasPrefix(l, "  ") {
			assert.LessOrEqual(t, present.Width(l), maxHelpCols, "conformance: a contract's evidence is folded: %q", l)
		}
	}

	res = invoke(t, "conformance", "matrix", "label"+poison+"="+filepath.Join(dir, "conf.json"))
	assert.Equal(t, ExitOK, res.code, "matrix: %s", res.stderr)
	assertSafe(t, "conformance matrix", res.stdout+res.stderr, "")
	assert.Contains(t, res.stdout, "label"+poisonShown, "matrix: the label's controls are visible")

	res = invoke(t, "capacity", "--url", srv.URL, "--workload", w, "--by", "concurrency", "--slo", "ttft_p95_ms <= 500", "--max-time", "30s")
	assert.Equal(t, ExitFailed, res.code, "capacity: no probe passes")
	assertSafe(t, "capacity", res.stderr, res.stdout)
	assert.Contains(t, res.stderr, "(model m-"+poisonShown, "capacity: the model's controls are visible")

	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0")
	assert.Equal(t, ExitFailed, res.code, "sweep: every request failed")
	assertSafe(t, "sweep", res.stdout+res.stderr, "")
	assert.Contains(t, res.stderr, "model=m-"+poisonShown, "sweep: the model's controls are visible")
	assert.Contains(t, res.stderr, "boom "+poisonShown, "sweep: the server's message is visible")

	merged := filepath.Join(dir, "merged.json")
	res = invoke(t, "merge", merged, out)
	assertSafe(t, "merge", res.stdout+res.stderr, "")
	assert.Contains(t, res.stdout, `workload "w\x1b[2Kname"`, "merge: the workload name's controls are visible")

	journal := filepath.Join(dir, "cut.journal.jsonl")
	j, err := resultio.CreateJournal(journal, resultio.JournalHeaderFor(&p))
	require.NoError(t, err, "setup: journal")
	require.NoError(t, j.Append(p.Results[0]), "setup: journal record")
	require.NoError(t, j.Close(), "setup: journal closed")
	res = invoke(t, "recover", journal)
	assert.Equal(t, ExitOK, res.code, "recover: %s", res.stderr)
	assertSafe(t, "recover", res.stderr, res.stdout)
	assert.Contains(t, res.stderr, `(workload "w\x1b[2Kname")`, "recover: the workload name's controls are visible")

	html := filepath.Join(dir, "r.html")
	res = invoke(t, "report", out, "--output", html, "--title", "t"+poison)
	assert.Equal(t, ExitOK, res.code, "report: %s", res.stderr)
	assertSafe(t, "report", res.stdout+res.stderr, "")
	page, err := os.ReadFile(html)
	require.NoError(t, err, "report: the page was written")
	block := regexp.MustCompile(`(?s)<script type="application/json" id="benchserve-data">.*?</script>`)
	assertSafe(t, "report page", block.ReplaceAllString(string(page), ""), block.FindString(string(page)))
	assert.Contains(t, string(page), `t`+present.EscapeUnicode(poison), "report: the title's controls are visible in the page")
}

// TestPoisonedServerInTheLiveProgressLine: in a terminal the live line is
// drawn with the progress reporter's own "\r\x1b[K"; nothing else raw
// reaches it.
func TestPoisonedServerInTheLiveProgressLine(t *testing.T) {
	old := stderrIsTerminal
	stderrIsTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { stderrIsTerminal = old })
	srv := poisonServer(t)
	w := writeWorkloadFile(t, t.TempDir(), "w.json", poisonWorkload)
	res := invoke(t, "--url", srv.URL, "--workload", w, "--repetitions", "2", "--output", filepath.Join(t.TempDir(), "o.json"))
	assert.Equal(t, ExitFailed, res.code, "every request failed")
	assert.Contains(t, res.stderr, "\r\x1b[K", "the live line is drawn")
	assertSafe(t, "live progress", strings.ReplaceAll(res.stdout+res.stderr, "\r\x1b[K", ""), "")
	assert.Contains(t, res.stderr, "  FAIL case\r", "the live line shows the case, cut before an escape that does not fit")
	assert.NotRegexp(t, `\\(x|x1|u|u2|u20|u202)\r`, res.stderr, "the live line is cut to the terminal's width between escapes, never inside one")
	assert.Contains(t, res.stderr, "\n  case\\x1b[2K\\u202eid\n", "the failure report names the case, escaped")
	assert.Contains(t, res.stderr, "boom "+poisonShown, "the failure report shows the server's message escaped")
}

// TestCSVOnStdoutIsExactUnlessATerminal: CSV on stdout keeps its bytes
// for a pipe, and is escaped when a person reads it in a terminal.
func TestCSVOnStdoutIsExactUnlessATerminal(t *testing.T) {
	srv := poisonServer(t)
	w := writeWorkloadFile(t, t.TempDir(), "w.json", poisonWorkload)
	res := invoke(t, "--url", srv.URL, "--workload", w, "--repetitions", "1", "--format", "csv")
	assert.Contains(t, res.stdout, "case\x1b[2K\u202eid", "piped CSV keeps the case id's bytes")
	old := stdoutIsTerminal
	stdoutIsTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { stdoutIsTerminal = old })
	res = invoke(t, "--url", srv.URL, "--workload", w, "--repetitions", "1", "--format", "csv")
	assertSafe(t, "CSV in a terminal", res.stderr, res.stdout)
	assert.Contains(t, res.stdout, `case\x1b[2K\u202eid`, "CSV in a terminal shows the escapes")
}
