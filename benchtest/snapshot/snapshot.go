// Package snapshot records what must not drift in a benchtest run as
// go-snaps snapshots (github.com/gkampitakis/go-snaps): per case a
// normalized answer fingerprint, per conformance contract its verdict.
//
// It is its own package, not benchtest.Snapshot as issue 26 first named
// it, because go-snaps' package initialization adds about 270 KB to every
// binary that links it: a test that imports only benchtest does not link
// go-snaps; one that imports benchtest/snapshot opts in.
//
//	func TestChat(t *testing.T) {
//		benchtest.RunWorkload(t, "testdata/chat.json", snapshot.Answers(""))
//	}
//
// A fingerprint that differs from the stored one fails the case's
// subtest with go-snaps' diff; UPDATE_SNAPS=true accepts the new one. On
// CI (go-snaps' detection: $CI and the like) a missing snapshot fails
// instead of being written.
package snapshot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/results"
)

// Answers returns a benchtest.Option (RunWorkload, RunConformance) that
// matches each case's fingerprint with snaps.MatchJSON inside the case's
// subtest, in dir/answers.snap (dir "" means __snapshots__ in the
// working directory, the test's package directory under go test).
//
// A workload case's fingerprint holds what repeats across runs of an
// unchanged server: outcome, finish_reason, the names of the checks that
// failed (checks_failed; all passed when empty), the request error's
// presence (not its text), the tool calls' names with their argument
// keys sorted, json_valid when the request asked for JSON
// (response_format json_object or json_schema), and the content only
// when the request asked for greedy decoding (temperature 0 and a seed;
// the whole content with benchtest.WithContent, else its preview). Left
// out as volatile: ids, timestamps, timings, usage and token counts, the
// content of other cases and the issue messages' text. A contract's
// fingerprint is its name, level and verdict.
func Answers(dir string) benchtest.Option {
	if dir == "" {
		wd, err := os.Getwd()
		if err == nil {
			dir = filepath.Join(wd, "__snapshots__")
		} else {
			dir = "__snapshots__"
		}
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		dir = abs
	}
	// An absolute dir: go-snaps joins a relative one to its caller's
	// file, which is this package's, not the user's test.
	cfg := snaps.WithConfig(snaps.Dir(dir), snaps.Filename("answers"))
	return benchtest.OnRecord(func(t *testing.T, rec results.Record, failedChecks []string) {
		t.Helper()
		cfg.MatchJSON(t, fingerprint(rec, failedChecks))
	})
}

// toolCall is one tool call in a fingerprint.
type toolCall struct {
	Name         string   `json:"name"`
	ArgumentKeys []string `json:"argument_keys"`
	ArgumentsOK  bool     `json:"arguments_json"`
}

// fingerprint is a record without what changes from run to run.
func fingerprint(rec results.Record, failedChecks []string) map[string]any {
	if c := rec.Contract; c != nil {
		return map[string]any{"contract": c.Name, "level": c.Level, "verdict": c.Verdict}
	}
	fp := map[string]any{
		"outcome":       string(rec.Outcome),
		"finish_reason": rec.Quality.FinishReason,
		"checks_failed": failedChecks,
		"request_error": rec.Error != "",
	}
	content := rec.Quality.ContentPreview
	if rec.Quality.Content != nil {
		content = *rec.Quality.Content
	}
	if rec.ToolCalls != nil {
		calls := []toolCall{}
		for _, tc := range rec.ToolCalls.Raw {
			var args map[string]json.RawMessage
			ok := json.Unmarshal([]byte(tc.Function.Arguments), &args) == nil
			keys := []string{}
			for k := range args {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			calls = append(calls, toolCall{Name: tc.Function.Name, ArgumentKeys: keys, ArgumentsOK: ok})
		}
		fp["tool_calls"] = calls
	}
	if asksJSON(rec) {
		fp["json_valid"] = json.Valid([]byte(content))
	}
	if greedy(rec) {
		fp["content"] = content
	}
	return fp
}

// asksJSON reports whether the request asked for a JSON answer.
func asksJSON(rec results.Record) bool {
	rf, _ := rec.Request.ExtraBody["response_format"].(map[string]any)
	t, _ := rf["type"].(string)
	return t == "json_object" || t == "json_schema"
}

// greedy reports whether the request asked for greedy decoding with a
// seed (temperature 0 and a seed), as benchserve compare judges it.
func greedy(rec results.Record) bool {
	_, seeded := rec.Request.ExtraBody["seed"]
	switch t := rec.Request.ExtraBody["temperature"].(type) {
	case float64:
		return seeded && t == 0
	case json.Number:
		f, err := t.Float64()
		return seeded && err == nil && f == 0
	}
	return false
}
