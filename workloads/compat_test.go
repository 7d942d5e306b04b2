package workloads

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The inputs below are ones the reference's load_workload accepts; the
// wanted values are what it makes of them (case_id, tags, the max_tokens
// _resolve_max_tokens sends, policy_timeout_ms and within_timeout,
// str() of patterns), obtained by running the reference's load_workload
// and helpers from ../shared/spec on each document.

func refParse(t *testing.T, src string) *Workload {
	t.Helper()
	w, err := Parse([]byte(src), "w.json")
	require.NoError(t, err, "the reference accepts %s", src)
	return w
}

func caseIDs(w *Workload) []string {
	var ids []string
	for _, c := range w.Cases {
		ids = append(ids, c.ID)
	}
	return ids
}

func TestReferenceMeaningIDs(t *testing.T) {
	w := refParse(t, `{"cases": [{"id": 5, "messages": `+userMsg+`}, {"id": 1.5, "messages": `+userMsg+`}, {"id": true, "messages": `+userMsg+`}, {"id": 0, "messages": `+userMsg+`}, {"id": [], "messages": `+userMsg+`}]}`)
	assert.Equal(t, []string{"5", "1.5", "True", "case_4", "case_5"}, caseIDs(w), "str(item.get('id') or f'case_{idx+1}')")
	assert.Equal(t, []string{
		`w.json: case "5": id: 5 is not a string; used as "5" (the reference applies str())`,
		`w.json: case "1.5": id: 1.5 is not a string; used as "1.5" (the reference applies str())`,
		`w.json: case "True": id: true is not a string; used as "True" (the reference applies str())`,
		`w.json: case #4: id: 0 is falsy; the case is named "case_4", as in the reference`,
		`w.json: case #5: id: [] is falsy; the case is named "case_5", as in the reference`,
	}, w.Warnings, "each accepted id is a warning naming file, case and field")
}

func TestReferenceMeaningTags(t *testing.T) {
	w := refParse(t, `{"cases": [{"id": "t", "messages": `+userMsg+`, "tags": ["a", 1, null, true, 2.50]}]}`)
	assert.Equal(t, []string{"a", "1", "None", "True", "2.5"}, w.Cases[0].Tags, "tuple(str(tag) for tag in tags)")
	assert.Len(t, w.Warnings, 4, "one warning per non-string tag: %v", w.Warnings)
	assert.Equal(t, `w.json: case "t": tags[2]: null is not a string; used as "None" (the reference applies str())`, w.Warnings[1], "null tag warning")
}

func TestReferenceMeaningNameDescription(t *testing.T) {
	w := refParse(t, `{"name": 7, "description": 3.0, "cases": [{"messages": `+userMsg+`}]}`)
	assert.Equal(t, "7", w.Name, "str(raw.get('name') or stem)")
	assert.Equal(t, "3.0", w.Description, "str(3.0)")
	assert.Len(t, w.Warnings, 2, "name and description warnings: %v", w.Warnings)

	w = refParse(t, `{"name": 0, "description": false, "cases": [{"messages": `+userMsg+`}]}`)
	assert.Equal(t, "w", w.Name, "a falsy name falls back to the file stem")
	assert.Equal(t, "", w.Description, "a falsy description is empty")
	assert.Equal(t, []string{
		"w.json: name: 0 is falsy; treated as unset, as in the reference",
		"w.json: description: false is falsy; treated as unset, as in the reference",
	}, w.Warnings, "falsy name and description warnings")
}

func TestReferenceMeaningEmptyChecks(t *testing.T) {
	w := refParse(t, `{"defaults": {"checks": {"json": true}}, "cases": [{"id": "c", "messages": `+userMsg+`, "checks": []}]}`)
	require.NotNil(t, w.Cases[0].Checks, "the defaults' checks still apply")
	assert.Equal(t, []string{"json"}, w.Cases[0].Checks.Keys(), "merged checks are the defaults' {json: true}")
	assert.Equal(t, []string{`w.json: case "c": checks: [] is not an object; no checks from here (the reference skips a falsy checks value)`}, w.Warnings, "warning")

	w = refParse(t, `{"cases": [{"id": "c", "messages": `+userMsg+`, "checks": []}]}`)
	assert.Nil(t, w.Cases[0].Checks, "no checks at all: None")
}

func TestReferenceMeaningMaxTokensFalsy(t *testing.T) {
	w := refParse(t, `{"defaults": {"max_tokens": 100}, "cases": [{"id": "z", "messages": `+userMsg+`, "max_tokens": 0}, {"id": "f", "messages": `+userMsg+`, "max_tokens": false}, {"id": "n", "messages": `+userMsg+`}]}`)
	for _, c := range w.Cases {
		assert.Equal(t, 100, c.EffectiveMaxTokens(), "case %s sends int(case.max_tokens or defaults['max_tokens'])", c.ID)
	}
	assert.Equal(t, []string{
		`w.json: case "z": max_tokens: 0 is falsy; defaults.max_tokens (else 256) is sent, as in the reference`,
		`w.json: case "f": max_tokens: false is falsy; defaults.max_tokens (else 256) is sent, as in the reference`,
	}, w.Warnings, "warnings")

	w = refParse(t, `{"cases": [{"id": "z", "messages": `+userMsg+`, "max_tokens": 0}]}`)
	assert.Equal(t, 256, w.Cases[0].EffectiveMaxTokens(), "no defaults: 256")

	// A falsy case value also hides the request file's (first_not_none
	// picks the 0), so the defaults' value or 256 applies.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "req.json"), []byte(`{"max_tokens": 300}`), 0o600), "request file")
	path := filepath.Join(dir, "w.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"cases": [{"id": "z", "request_path": "req.json", "messages": `+userMsg+`, "max_tokens": 0}]}`), 0o600), "workload")
	wl, err := Load(path)
	require.NoError(t, err, "load")
	assert.Equal(t, 256, wl.Cases[0].EffectiveMaxTokens(), "case 0 beats the request file's 300, then falls back to 256")
}

func TestReferenceMeaningPolicyTimeoutNotPositive(t *testing.T) {
	w := refParse(t, `{"cases": [{"id": "z", "messages": `+userMsg+`, "policy_timeout_ms": 0}, {"id": "neg", "messages": `+userMsg+`, "policy_timeout_ms": -5}]}`)
	require.NotNil(t, w.Cases[0].PolicyTimeoutMS, "0 is kept")
	assert.Equal(t, 0.0, *w.Cases[0].PolicyTimeoutMS, "timeout_ms 0 recorded")
	require.NotNil(t, w.Cases[1].PolicyTimeoutMS, "-5 is kept")
	assert.Equal(t, -5.0, *w.Cases[1].PolicyTimeoutMS, "timeout_ms -5 recorded")
	assert.Equal(t, `w.json: case "z": policy_timeout_ms: 0 sets no timeout and records within_timeout false, as in the reference`, w.Warnings[0], "warning")
}

func TestReferenceMeaningNonStringPatterns(t *testing.T) {
	w := refParse(t, `{"cases": [{"id": "p", "messages": `+userMsg+`, "checks": {"required_regex": [1, true, null, 1.5], "tool_call_names": [7]}}]}`)
	spec := w.Cases[0].Checks
	require.NotNil(t, spec, "checks")
	var srcs []string
	for _, p := range spec.RequiredRegex {
		srcs = append(srcs, p.Source)
	}
	assert.Equal(t, []string{"1", "True", "None", "1.5"}, srcs, "re.search(str(pattern), ...)")
	assert.Equal(t, []string{"7"}, spec.ToolCallNames, "sorted(str(name) for name in expected_names)")
	assert.Len(t, w.Warnings, 5, "one warning per non-string item: %v", w.Warnings)
	assert.Equal(t, `w.json: case "p": checks.required_regex[1]: true is not a string; used as "True" (the reference applies str())`, w.Warnings[1], "warning names the item")
}

func TestReferenceMeaningFalsyObjects(t *testing.T) {
	w := refParse(t, `{"defaults": [], "cases": [{"messages": `+userMsg+`, "extra_body": 0}]}`)
	assert.Empty(t, w.Defaults, "defaults or {}")
	assert.JSONEq(t, `{}`, string(w.DefaultsJSON), "echoed as {}")
	assert.Nil(t, w.Cases[0].ExtraBody, "a falsy extra_body adds nothing")
	assert.Len(t, w.Warnings, 2, "defaults and extra_body warnings: %v", w.Warnings)
}

func TestRegexGivenAsStringIsRefused(t *testing.T) {
	_, err := Parse([]byte(`{"cases": [{"id": "r", "messages": `+userMsg+`, "checks": {"required_regex": "def "}}]}`), "w.json")
	require.Error(t, err, "the reference would check 'd', 'e', 'f' and ' ' as four patterns")
	assert.Contains(t, err.Error(), `w.json: case "r": checks.required_regex: want a list of regex strings, got the string "def ": the reference would iterate it character by character`, "says why")
}

func TestLoadRefusesInvalidUTF8AndHugeFiles(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"name\": \"caf\xe9\", \"cases\": []}"), 0o600), "write")
	_, err := Load(bad)
	require.Error(t, err, "invalid UTF-8")
	assert.Contains(t, err.Error(), bad+": invalid UTF-8 at byte offset 13", "names file and offset")

	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	require.NoError(t, err, "create")
	require.NoError(t, f.Truncate(MaxFileSize+1), "sparse 16 MiB + 1")
	require.NoError(t, f.Close(), "close")
	_, err = Load(huge)
	require.Error(t, err, "too large")
	assert.Contains(t, err.Error(), "file is larger than 16 MiB", "clear error")

	if _, statErr := os.Stat("/dev/zero"); statErr == nil {
		_, err = Load("/dev/zero")
		require.Error(t, err, "/dev/zero must not be read forever")
		assert.True(t, strings.Contains(err.Error(), "not a regular file"), "a device is refused before reading: got %v", err)
	}
}

// TestOrderedDefaultsAndExtraBody: the defaults block and each case's
// extra body keep the reference's key order (the wanted JSON is what its
// load_workload returns for these files).
func TestOrderedDefaultsAndExtraBody(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "req.json"),
		[]byte(`{"temperature": 0.5, "model": "x", "top_p": 0.9, "messages": [{"role": "user", "content": "hi"}], "seed": 1}`), 0o600), "request file")
	path := filepath.Join(dir, "w.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"defaults": {"max_tokens": 64, "extra_body": {"z": 1, "a": 2}, "checks": {"max_chars": 10, "finish_reason": ["stop"]}},
  "cases": [{"id": "r", "request_path": "req.json", "extra_body": {"seed": 7, "min_p": 0.1, "temperature": 0}},
            {"id": "d", "messages": [{"role": "user", "content": "hi"}]}]}`), 0o600), "workload")
	w, err := Load(path)
	require.NoError(t, err, "load")
	compact := func(raw []byte) string {
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, raw), "compact %s", raw)
		return b.String()
	}
	assert.Equal(t, `{"max_tokens":64,"extra_body":{"z":1,"a":2},"checks":{"max_chars":10,"finish_reason":["stop"]}}`, compact(w.DefaultsJSON), "defaults in file order")
	assert.Equal(t, `{"temperature":0,"top_p":0.9,"seed":7,"min_p":0.1}`, compact(w.Cases[0].ExtraBodyJSON),
		"request file keys in their order (model and messages reserved), updated by the case's extra_body, new keys appended")
	assert.Equal(t, `{"z":1,"a":2}`, compact(w.Cases[1].ExtraBodyJSON), "defaults' extra_body in file order")
}

func TestPayloadPath(t *testing.T) {
	home, err := os.UserHomeDir()
	require.NoError(t, err, "home")
	for in, want := range map[string]string{
		"workloads/chat.json":    "workloads/chat.json",
		"./workloads//chat.json": "workloads/chat.json",
		"../w.json":              "../w.json",
		"/abs/./w.json":          "/abs/w.json",
		"~/w.json":               filepath.Join(home, "w.json"),
	} {
		assert.Equal(t, want, PayloadPath(in), "str(Path(%q).expanduser())", in)
	}
}
