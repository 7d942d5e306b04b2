package results

import (
	"encoding/json"
	"reflect"
	"slices"
	"unicode/utf8"
)

// Fingerprint is what of r repeats across runs of an unchanged server,
// for a snapshot library to store and compare (go-snaps' snaps.MatchJSON
// in benchtest.OnRecord, README "Snapshots"). failedChecks are the names
// of the case's checks that failed (benchtest.OnRecord passes them:
// sorted, empty when every check held).
//
// For a workload case: outcome, finish_reason, checks_failed, whether the
// request failed (request_error; not its text), the tool calls' names
// with their argument keys sorted and whether the arguments parse as JSON
// (tool_calls, when the answer called tools), json_valid when the request
// asked for JSON (response_format json_object or json_schema; null when
// the record kept only the preview of a longer answer: keep the whole
// content, benchtest.WithContent, to judge it), and the
// content only when the request asked for greedy decoding (temperature 0
// and a seed; the whole content when the record kept it, else its
// preview). Left out as volatile: ids, timestamps, timings, usage and
// token counts, the content of sampled cases and the issue messages'
// text. For a contract (r.Contract set): its name, level and verdict.
//
// The map marshals to the same JSON for the same fingerprint (keys
// sorted by encoding/json). Addition: the reference has no snapshots.
func (r Record) Fingerprint(failedChecks []string) map[string]any {
	if c := r.Contract; c != nil {
		return map[string]any{"contract": c.Name, "level": c.Level, "verdict": c.Verdict}
	}
	if failedChecks == nil {
		failedChecks = []string{}
	}
	fp := map[string]any{
		"outcome":       string(r.Outcome),
		"finish_reason": r.Quality.FinishReason,
		"checks_failed": failedChecks,
		"request_error": r.Error != "",
	}
	content := r.Quality.ContentPreview
	if r.Quality.Content != nil {
		content = *r.Quality.Content
	}
	if r.ToolCalls != nil {
		calls := []fingerprintCall{}
		for _, tc := range r.ToolCalls.Raw {
			var args map[string]json.RawMessage
			ok := json.Unmarshal([]byte(tc.Function.Arguments), &args) == nil
			keys := []string{}
			for k := range args {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			calls = append(calls, fingerprintCall{Name: tc.Function.Name, ArgumentKeys: keys, ArgumentsOK: ok})
		}
		fp["tool_calls"] = calls
	}
	if r.asksJSON() {
		// A preview cut from a longer answer cannot say whether the
		// answer parses: null, not a false that looks measured.
		whole := r.Quality.Content != nil || utf8.RuneCountInString(content) >= r.Quality.ContentChars
		if whole {
			fp["json_valid"] = json.Valid([]byte(content))
		} else {
			fp["json_valid"] = nil
		}
	}
	if r.Greedy() {
		fp["content"] = content
	}
	return fp
}

// fingerprintCall is one tool call in a fingerprint.
type fingerprintCall struct {
	Name         string   `json:"name"`
	ArgumentKeys []string `json:"argument_keys"`
	ArgumentsOK  bool     `json:"arguments_json"`
}

// asksJSON reports whether the request asked for a JSON answer.
func (r Record) asksJSON() bool {
	rf, _ := r.Request.ExtraBody["response_format"].(map[string]any)
	t, _ := rf["type"].(string)
	return t == "json_object" || t == "json_schema"
}

// Greedy reports whether r's request asked for greedy decoding with a
// seed (extra_body "temperature" 0 and a numeric "seed": float64 and
// json.Number as decoded from JSON, or a Go integer or float), so that
// its answer should repeat from run to run: the answers a fingerprint
// holds and benchserve compare reports as changed. A null seed is none.
func (r Record) Greedy() bool {
	t, ok := number(r.Request.ExtraBody["temperature"])
	_, seeded := number(r.Request.ExtraBody["seed"])
	return ok && seeded && t == 0
}

// number reads a JSON or Go number (any integer or float kind) as a
// float64; ok is false for anything else (a string, null, a missing key).
func number(v any) (float64, bool) {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return f, err == nil
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt():
		return float64(rv.Int()), true
	case rv.CanUint():
		return float64(rv.Uint()), true
	case rv.CanFloat():
		return rv.Float(), true
	}
	return 0, false
}
