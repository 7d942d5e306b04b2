package benchtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/results"
)

// snapshotChildEnv marks the child processes of the snapshot tests.
const snapshotChildEnv = "BENCHTEST_SNAPSHOT_CHILD"

// ansiColour matches a terminal colour sequence.
var ansiColour = regexp.MustCompile("\x1b\\[[0-9;]*m")

// snapWorkload: one greedy case (temperature 0, a seed) and one sampled.
const snapWorkload = `{"name":"snap","cases":[
 {"id":"greedy","max_tokens":16,"extra_body":{"temperature":0,"seed":7},"messages":[{"role":"user","content":"Say hello."}]},
 {"id":"sampled","max_tokens":16,"extra_body":{"temperature":0.8},"messages":[{"role":"user","content":"Say hello."}]}]}`

// TestSnapshotAnswersChild is run by TestSnapshotAnswers in a child process: the fixture
// answers the greedy case with $SNAP_GREEDY and the sampled one with
// $SNAP_SAMPLED, snapshots under $SNAP_DIR.
func TestSnapshotAnswersChild(t *testing.T) {
	if os.Getenv(snapshotChildEnv) == "" {
		t.Skip("run by TestSnapshotAnswers in a child process")
	}
	responder := func(req fixtures.Request) fixtures.Script {
		answer := os.Getenv("SNAP_SAMPLED")
		if _, seeded := req.Body["seed"]; seeded {
			answer = os.Getenv("SNAP_GREEDY")
		}
		return fixtures.Script{Content: strings.SplitAfter(answer, " ")}
	}
	benchtest.RunWorkload(t, filepath.Join(os.Getenv("SNAP_DIR"), "w.json"),
		benchtest.WithFixture(fixtures.Options{Responder: responder}), benchtest.WithContent(),
		matchFingerprints(os.Getenv("SNAP_DIR")))
}

// runSnapshotChild runs TestSnapshotAnswersChild with the two answers; update sets
// UPDATE_SNAPS=true.
func runSnapshotChild(t *testing.T, dir, greedy, sampled string, update bool) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSnapshotAnswersChild$", "-test.v", "-test.count=1")
	cmd.Env = append(snapshotEnv(), snapshotChildEnv+"=1", "SNAP_DIR="+dir, "SNAP_GREEDY="+greedy, "SNAP_SAMPLED="+sampled)
	if update {
		cmd.Env = append(cmd.Env, "UPDATE_SNAPS=true")
	}
	out, err := cmd.CombinedOutput()
	// go-snaps colours its diff; the assertions read the text.
	return ansiColour.ReplaceAllString(string(out), ""), err
}

// First run writes the snapshot, the same answers pass, a changed greedy
// answer fails its subtest alone with go-snaps' diff, UPDATE_SNAPS=true
// accepts it, and a sampled case's changed content never fails.
func TestSnapshotAnswers(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "w.json"), []byte(snapWorkload), 0o644))
	snap := filepath.Join(dir, "answers.snap")

	out, err := runSnapshotChild(t, dir, "Hello there friend", "Hi you", false)
	require.NoError(t, err, "the first run writes the snapshot and passes:\n%s", out)
	data, err := os.ReadFile(snap)
	require.NoError(t, err, "the snapshot is written under the given dir")
	s := string(data)
	assert.Contains(t, s, "[TestSnapshotAnswersChild/greedy - 1]", "one snapshot per case subtest")
	assert.Contains(t, s, `"content": "Hello there friend"`, "the greedy case's content is recorded")
	assert.Contains(t, s, `"finish_reason": "stop"`, "finish_reason is recorded")
	assert.Contains(t, s, `"checks_failed": []`, "the checks' verdicts are recorded")
	assert.NotContains(t, s, "Hi you", "a sampled case's content is not recorded")
	assert.NotContains(t, s, "chatcmpl", "ids are not recorded")
	assert.NotContains(t, s, "ttft", "timings are not recorded")

	out, err = runSnapshotChild(t, dir, "Hello there friend", "Something else entirely", false)
	require.NoError(t, err, "the same greedy answer passes; the sampled content may change:\n%s", out)

	out, err = runSnapshotChild(t, dir, "Goodbye there friend", "Hi you", false)
	require.Error(t, err, "a changed greedy answer fails:\n%s", out)
	assert.Contains(t, out, "--- FAIL: TestSnapshotAnswersChild/greedy", "the greedy case's subtest fails")
	assert.Contains(t, out, "--- PASS: TestSnapshotAnswersChild/sampled", "the sampled case's subtest passes")
	assert.Contains(t, out, "- Snapshot - 1", "go-snaps' diff counts the stored lines that differ")
	assert.Contains(t, out, "+ Received + 1", "go-snaps' diff counts the new lines")
	assert.Contains(t, out, `-  "content": "Hello there friend",`, "the diff shows the stored answer")
	assert.Contains(t, out, `+  "content": "Goodbye there friend",`, "the diff shows the new answer")
	assert.Contains(t, out, "answers.snap:2", "the diff names the snapshot file and line")

	out, err = runSnapshotChild(t, dir, "Goodbye there friend", "Hi you", true)
	require.NoError(t, err, "UPDATE_SNAPS=true accepts the new answer:\n%s", out)
	out, err = runSnapshotChild(t, dir, "Goodbye there friend", "Hi you", false)
	require.NoError(t, err, "the accepted answer passes afterwards:\n%s", out)
	data, err = os.ReadFile(snap)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"content": "Goodbye there friend"`, "the snapshot holds the accepted answer")
}

// TestSnapshotConformanceChild is run by TestSnapshotConformance in a child process: the
// conformance suite against the fixture with $SNAP_FAULT.
func TestSnapshotConformanceChild(t *testing.T) {
	if os.Getenv(snapshotChildEnv) == "" {
		t.Skip("run by TestSnapshotConformance in a child process")
	}
	var faults []fixtures.Fault
	if f := os.Getenv("SNAP_FAULT"); f != "" {
		faults = append(faults, fixtures.Fault(f))
	}
	benchtest.RunConformance(t, benchtest.WithFixture(fixtures.Options{Faults: faults, Timing: &fixtures.Timing{}}),
		matchFingerprints(os.Getenv("SNAP_DIR")))
}

// A conforming fixture's verdicts are written, then a stream without
// [DONE] changes stream.framing's verdict: its subtest shows the diff.
func TestSnapshotConformance(t *testing.T) {
	dir := t.TempDir()
	child := func(fault string) (string, error) {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSnapshotConformanceChild$", "-test.v", "-test.count=1")
		cmd.Env = append(snapshotEnv(), snapshotChildEnv+"=1", "SNAP_DIR="+dir, "SNAP_FAULT="+fault)
		out, err := cmd.CombinedOutput()
		return ansiColour.ReplaceAllString(string(out), ""), err
	}
	out, err := child("")
	require.NoError(t, err, "the conforming fixture passes and writes its verdicts:\n%s", out)
	data, err := os.ReadFile(filepath.Join(dir, "answers.snap"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "[TestSnapshotConformanceChild/stream.framing - 1]\n{\n \"contract\": \"stream.framing\",\n \"level\": \"MUST\",\n \"verdict\": \"pass\"\n}",
		"one verdict per contract")
	out, err = child("")
	require.NoError(t, err, "the same verdicts pass:\n%s", out)
	out, err = child("no-done")
	require.Error(t, err, "a changed verdict fails:\n%s", out)
	assert.Contains(t, out, "--- FAIL: TestSnapshotConformanceChild/stream.framing")
	assert.Contains(t, out, `-  "verdict": "pass"`, "the diff shows the stored verdict")
	assert.Contains(t, out, `+  "verdict": "fail"`, "the diff shows the new verdict")
}

// matchFingerprints is the README's snapshot option, go-snaps'
// snaps.MatchJSON of each record's fingerprint, with the snapshots in
// dir/answers.snap instead of next to this file.
func matchFingerprints(dir string) benchtest.Option {
	snap := snaps.WithConfig(snaps.Dir(dir), snaps.Filename("answers"))
	return benchtest.OnRecord(func(t *testing.T, rec results.Record, failedChecks []string) {
		snap.MatchJSON(t, rec.Fingerprint(failedChecks))
	})
}

// snapshotEnv is the environment without the CI variables go-snaps reads
// and UPDATE_SNAPS, so a missing snapshot is written as on a developer's
// machine.
func snapshotEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "CI", "GITHUB_ACTIONS", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID", "UPDATE_SNAPS":
			continue
		}
		env = append(env, kv)
	}
	return env
}
