package workloads

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/results"
)

// writeFiles writes name -> content under a new temp dir and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755), "mkdir for %s", name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644), "write %s", name)
	}
	return dir
}

func mustParse(t *testing.T, src string) *Workload {
	t.Helper()
	w, err := Parse([]byte(src), "workloads/examples/chat.json")
	require.NoError(t, err, "workload must parse")
	return w
}

// problems returns the lines of a *LoadError after the header.
func problems(t *testing.T, err error) []string {
	t.Helper()
	var le *LoadError
	require.Truef(t, errors.As(err, &le), "error %v must be a *LoadError", err)
	var out []string
	for _, p := range le.Problems {
		out = append(out, p.Error())
	}
	return out
}

const userMsg = `[{"role": "user", "content": "hi"}]`

func TestParseMinimalDefaults(t *testing.T) {
	w := mustParse(t, `{"cases": [{"messages": `+userMsg+`}, {"id": "", "messages": `+userMsg+`}]}`)
	assert.Equal(t, "chat", w.Name, "name defaults to the file stem")
	assert.Equal(t, "", w.Description, "description defaults to empty")
	assert.Equal(t, "workloads/examples/chat.json", w.Path, "path as given")
	assert.Equal(t, map[string]any{}, w.Defaults, "defaults default to an empty object")
	assert.Empty(t, w.CachePolicy, "no cache policy set")
	require.Len(t, w.Cases, 2, "two cases")
	c := w.Cases[0]
	assert.Equal(t, "case_1", c.ID, "generated id is 1-based")
	assert.Equal(t, "case_2", w.Cases[1].ID, "empty id falls back to the generated one, like the reference's `or`")
	assert.Equal(t, 1, w.Cases[1].Index, "0-based index")
	assert.Equal(t, []results.Message{{"role": "user", "content": "hi"}}, c.Messages, "messages")
	assert.Nil(t, c.MaxTokens, "max_tokens unset")
	assert.Equal(t, results.DefaultMaxTokens, c.EffectiveMaxTokens(), "effective max_tokens falls back")
	assert.Nil(t, c.EnableThinking, "enable_thinking unset")
	assert.Nil(t, c.PolicyTimeoutMS, "policy_timeout_ms unset")
	assert.Nil(t, c.ExtraBody, "no extra body")
	assert.Nil(t, c.Checks, "no checks")
	assert.Equal(t, []string{}, c.Tags, "no tags is an empty list")
	assert.Equal(t, "", c.RequestPath, "no request path")
}

func TestParseNameDescriptionAndNullContent(t *testing.T) {
	w := mustParse(t, `{"name": "smoke", "description": "d", "defaults": null, "cases": [
		{"id": "tool-result", "messages": [{"role": "assistant", "content": null, "tool_calls": []}, {"role": "tool", "content": "42", "tool_call_id": "c1"}]}]}`)
	assert.Equal(t, "smoke", w.Name, "explicit name")
	assert.Equal(t, "d", w.Description, "explicit description")
	assert.Nil(t, w.Cases[0].Messages[0]["content"], "content may be null")
	assert.Equal(t, []any{}, w.Cases[0].Messages[0]["tool_calls"], "other message keys pass through")
}

func TestParseEmptyNameUsesStem(t *testing.T) {
	w, err := Parse([]byte(`{"name": "", "cases": [{"messages": `+userMsg+`}]}`), "/x/y/my.work.json")
	require.NoError(t, err, "parse")
	assert.Equal(t, "my.work", w.Name, "only the last extension is dropped, like Path.stem")
}

func TestRequestPath(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"suite/w.json": `{
			"defaults": {"max_tokens": 64, "extra_body": {"temperature": 0.5, "top_p": 0.9}},
			"cases": [
				{"id": "from-file", "request_path": "req/r.json"},
				{"id": "case-overrides", "request_path": "req/r.json", "max_tokens": 8, "enable_thinking": false,
				 "messages": [{"role": "user", "content": "inline"}], "extra_body": {"seed": 2, "tools": []}},
				{"id": "null-extra", "request_path": "req/r.json", "extra_body": null},
				{"id": "abs", "request_path": "ABS"}
			]}`,
		"suite/req/r.json": `{"model": "m", "stream": false, "stream_options": {"include_usage": false},
			"max_tokens": 32, "enable_thinking": true, "policy_timeout_ms": 1500,
			"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}],
			"tools": [{"type": "function"}], "seed": 1}`,
	})
	wpath := filepath.Join(dir, "suite", "w.json")
	data, err := os.ReadFile(wpath)
	require.NoError(t, err, "read workload")
	data = []byte(strings.Replace(string(data), "ABS", filepath.ToSlash(filepath.Join(dir, "suite", "req", "r.json")), 1))
	require.NoError(t, os.WriteFile(wpath, data, 0o644), "rewrite workload")

	w, err := Load(wpath)
	require.NoError(t, err, "load")
	require.Len(t, w.Cases, 4, "cases")

	c := w.Cases[0]
	assert.Equal(t, "req/r.json", c.RequestPath, "request_path as written")
	assert.Equal(t, []results.Message{{"role": "system", "content": "s"}, {"role": "user", "content": "q"}}, c.Messages, "messages from the request file")
	assert.Equal(t, 32, *c.MaxTokens, "request file beats defaults")
	assert.True(t, *c.EnableThinking, "enable_thinking from the request file")
	assert.Equal(t, 1500.0, *c.PolicyTimeoutMS, "policy_timeout_ms from the request file")
	assert.Equal(t, map[string]any{
		"tools": []any{map[string]any{"type": "function"}}, "seed": json.Number("1"), "policy_timeout_ms": json.Number("1500"),
		"temperature": json.Number("0.5"), "top_p": json.Number("0.9"),
	}, c.ExtraBody, "reserved keys stripped, non-reserved kept (policy_timeout_ms too, as in the reference), defaults' extra_body overlaid")

	c = w.Cases[1]
	assert.Equal(t, []results.Message{{"role": "user", "content": "inline"}}, c.Messages, "case messages beat the request file")
	assert.Equal(t, 8, *c.MaxTokens, "case beats request file")
	assert.False(t, *c.EnableThinking, "case false beats request true (first non-null, not first truthy)")
	assert.Equal(t, map[string]any{"tools": []any{}, "seed": json.Number("2"), "policy_timeout_ms": json.Number("1500")}, c.ExtraBody,
		"case extra_body overlays the request extras and replaces the defaults' extra_body")

	assert.Equal(t, map[string]any{"tools": []any{map[string]any{"type": "function"}}, "seed": json.Number("1"), "policy_timeout_ms": json.Number("1500")},
		w.Cases[2].ExtraBody, "a null case extra_body suppresses the defaults' extra_body")
	assert.Equal(t, w.Cases[0].Messages, w.Cases[3].Messages, "an absolute request_path is used as is")
}

func TestPrecedence(t *testing.T) {
	w := mustParse(t, `{"defaults": {"max_tokens": 100, "enable_thinking": true, "policy_timeout_ms": 2500.5},
		"cases": [
			{"messages": `+userMsg+`},
			{"messages": `+userMsg+`, "max_tokens": 7, "enable_thinking": false, "policy_timeout_ms": 10},
			{"messages": `+userMsg+`, "max_tokens": null, "enable_thinking": null}
		]}`)
	assert.Equal(t, 100, *w.Cases[0].MaxTokens, "defaults apply")
	assert.True(t, *w.Cases[0].EnableThinking, "defaults apply")
	assert.Equal(t, 2500.5, *w.Cases[0].PolicyTimeoutMS, "fractional timeout kept")
	assert.Equal(t, 7, *w.Cases[1].MaxTokens, "case wins")
	assert.Equal(t, 7, w.Cases[1].EffectiveMaxTokens(), "effective is the resolved value")
	assert.False(t, *w.Cases[1].EnableThinking, "case false wins")
	assert.Equal(t, 10.0, *w.Cases[1].PolicyTimeoutMS, "case wins")
	assert.Equal(t, 100, *w.Cases[2].MaxTokens, "null falls through to defaults")
	assert.True(t, *w.Cases[2].EnableThinking, "null falls through to defaults")
}

func TestChecksMerging(t *testing.T) {
	w := mustParse(t, `{"defaults": {"checks": {"finish_reason": "stop", "forbidden_regex": ["<think>"], "min_chars": 40}},
		"cases": [
			{"id": "inherits", "messages": `+userMsg+`},
			{"id": "extends", "messages": `+userMsg+`, "checks": {"forbidden_regex": ["TODO"], "required_regex": ["def "], "min_chars": 80,
				"tool_call_args_required_keys": {"zeta": ["b"], "alpha": ["a"]}}},
			{"id": "empty", "messages": `+userMsg+`, "checks": {}},
			{"id": "drops", "messages": `+userMsg+`, "checks": {"forbidden_regex": null, "finish_reason": null, "min_chars": null}}
		]}`)
	s := w.Cases[0].Checks
	require.NotNil(t, s, "defaults checks apply to a case without checks")
	assert.Equal(t, []string{"stop"}, s.FinishReason, "finish_reason")
	assert.Equal(t, 40, *s.MinChars, "min_chars")

	s = w.Cases[1].Checks
	require.NotNil(t, s, "merged checks")
	var forbidden []string
	for _, p := range s.ForbiddenRegex {
		forbidden = append(forbidden, p.Source)
	}
	assert.Equal(t, []string{"<think>", "TODO"}, forbidden, "regex lists concatenate, defaults first")
	assert.Equal(t, "def ", s.RequiredRegex[0].Source, "case-only key")
	assert.Equal(t, 80, *s.MinChars, "case overrides")
	assert.Equal(t, []string{"stop"}, s.FinishReason, "inherited")
	assert.Equal(t, []checks.RequiredKeys{{Function: "zeta", Keys: []string{"b"}}, {Function: "alpha", Keys: []string{"a"}}},
		s.ToolCallArgsRequiredKeys, "tool_call_args_required_keys keeps the written order")
	raw, err := json.Marshal(s.Raw)
	require.NoError(t, err, "Raw marshals")
	assert.Contains(t, string(raw), `"tool_call_args_required_keys":{"zeta":["b"],"alpha":["a"]}`, "Raw keeps the written order for results payloads")

	assert.Equal(t, 40, *w.Cases[2].Checks.MinChars, "an empty case checks object keeps the defaults")
	assert.Empty(t, w.Cases[3].Checks.Keys(), "null values switch inherited checks off")
}

func TestTags(t *testing.T) {
	w := mustParse(t, `{"cases": [
		{"id": "a", "messages": `+userMsg+`, "tags": "code"},
		{"id": "b", "messages": `+userMsg+`, "tags": ["code", "quality"]},
		{"id": "c", "messages": `+userMsg+`, "tags": []},
		{"id": "d", "messages": `+userMsg+`}
	]}`)
	assert.Equal(t, []string{"code"}, w.Cases[0].Tags, "a string is one tag")
	assert.Equal(t, []string{"code", "quality"}, w.Cases[1].Tags, "list in order")
	assert.Equal(t, []string{}, w.Cases[2].Tags, "empty list")
	ids := func(cs []Case) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	assert.Equal(t, []string{"a", "b", "c", "d"}, ids(w.Select(nil)), "no tags selects all")
	assert.Equal(t, []string{"a", "b"}, ids(w.Select([]string{"code"})), "any tag matches")
	assert.Equal(t, []string{"b"}, ids(w.Select([]string{"quality", "nope"})), "any of several")
	assert.Empty(t, w.Select([]string{"nope"}), "no match")
}

func TestCachePolicy(t *testing.T) {
	for in, want := range map[string]CachePolicy{
		"": CachePreserve, "preserve": CachePreserve, "PRESERVE": CachePreserve, "before-run": CacheBeforeRun,
		"before_run": CacheBeforeRun, " Before_Case ": CacheBeforeCase, "BEFORE-CASE": CacheBeforeCase,
	} {
		got, err := NormalizeCachePolicy(in)
		if assert.NoErrorf(t, err, "NormalizeCachePolicy(%q)", in) {
			assert.Equalf(t, want, got, "NormalizeCachePolicy(%q)", in)
		}
	}
	for _, in := range []string{"always", "  ", "before run"} {
		_, err := NormalizeCachePolicy(in)
		assert.EqualErrorf(t, err, `workload: cache policy "`+in+`": must be one of: preserve, before-run, before-case`, "NormalizeCachePolicy(%q)", in)
	}
	w := mustParse(t, `{"defaults": {"cache_policy": "Before_Case"}, "cases": [{"messages": `+userMsg+`}]}`)
	assert.Equal(t, CacheBeforeCase, w.CachePolicy, "defaults.cache_policy normalized")
	assert.Equal(t, "Before_Case", w.Defaults["cache_policy"], "raw defaults keep the spelling")
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"root not object", `[1]`, []string{`workloads/examples/chat.json: want a JSON object at the top level, got [1]`}},
		{"cases missing", `{"name": "x"}`, []string{`workloads/examples/chat.json: cases: missing; want a non-empty list of case objects`}},
		{"cases empty", `{"cases": []}`, []string{`workloads/examples/chat.json: cases: want a non-empty list of case objects, got []`}},
		{"unknown top key", `{"case": [], "cases": [{"messages": ` + userMsg + `}]}`, []string{`workloads/examples/chat.json: case: unknown key (did you mean "cases"?)`}},
		{"unknown defaults key", `{"defaults": {"max_token": 5, "colour": 1}, "cases": [{"messages": ` + userMsg + `}]}`, []string{
			`workloads/examples/chat.json: defaults.colour: unknown key (known keys: cache_policy, checks, enable_thinking, endpoint, extra_body, max_tokens, policy_timeout_ms, slo)`,
			`workloads/examples/chat.json: defaults.max_token: unknown key (did you mean "max_tokens"?)`,
		}},
		{"unknown case keys", `{"cases": [{"id": "greet", "messages": ` + userMsg + `, "tag": "x", "cache_policy": "preserve", "name": "n"}]}`, []string{
			`workloads/examples/chat.json: case "greet": cache_policy: unknown key (cache_policy is only allowed in defaults)`,
			`workloads/examples/chat.json: case "greet": name: unknown key (cases have an "id", not a "name")`,
			`workloads/examples/chat.json: case "greet": tag: unknown key (did you mean "tags"?)`,
		}},
		{"defaults types", `{"name": [3], "description": {"a": 1}, "defaults": {"max_tokens": -1, "enable_thinking": "no", "policy_timeout_ms": "5", "extra_body": ["x"], "checks": {"min_chars": "x"}, "cache_policy": "always"}, "cases": [{"messages": ` + userMsg + `}]}`, []string{
			`workloads/examples/chat.json: name: want a string, got [3]`,
			`workloads/examples/chat.json: description: want a string, got {"a":1}`,
			`workloads/examples/chat.json: defaults.max_tokens: want a positive integer, got -1`,
			`workloads/examples/chat.json: defaults.enable_thinking: want true or false, got "no"`,
			`workloads/examples/chat.json: defaults.policy_timeout_ms: want a number of milliseconds, got "5"`,
			`workloads/examples/chat.json: defaults.cache_policy: want one of preserve, before-run, before-case (underscores and any case accepted), got "always"`,
			`workloads/examples/chat.json: defaults.extra_body: want an object, got ["x"]`,
			`workloads/examples/chat.json: defaults.checks.min_chars: want an integer >= 0, got "x"`,
		}},
		{"defaults not object", `{"defaults": ["x"], "cases": [{"messages": ` + userMsg + `}]}`, []string{`workloads/examples/chat.json: defaults: want an object, got ["x"]`}},
		{"case not object", `{"cases": ["hi"]}`, []string{`workloads/examples/chat.json: case #1: want a case object, got "hi"`}},
		{"case types", `{"cases": [{"messages": ` + userMsg + `}, {"id": "greet", "messages": ` + userMsg + `, "max_tokens": 1.5, "enable_thinking": 1, "policy_timeout_ms": "5", "extra_body": "x", "tags": ["a", [2]], "checks": {"min_chars": "x", "required_regex": ["(?<=a)b"]}}]}`, []string{
			`workloads/examples/chat.json: case "greet": max_tokens: want a positive integer, got 1.5`,
			`workloads/examples/chat.json: case "greet": enable_thinking: want true or false, got 1`,
			`workloads/examples/chat.json: case "greet": policy_timeout_ms: want a number of milliseconds, got "5"`,
			`workloads/examples/chat.json: case "greet": extra_body: want an object, got "x"`,
			`workloads/examples/chat.json: case "greet": checks.min_chars: want an integer >= 0, got "x"`,
			`workloads/examples/chat.json: case "greet": checks.required_regex[0]: invalid pattern "(?<=a)b": lookbehind is not supported`,
			`workloads/examples/chat.json: case "greet": tags[1]: want a string, got [2]`,
		}},
		{"case id type", `{"cases": [{"id": [5], "messages": ` + userMsg + `}]}`, []string{`workloads/examples/chat.json: case #1: id: want a string, got [5]`}},
		{"checks not object", `{"cases": [{"messages": ` + userMsg + `, "checks": ["json"]}]}`, []string{`workloads/examples/chat.json: case #1: checks: want an object, got ["json"]`}},
		{"merged checks conflict", `{"defaults": {"checks": {"min_chars": 100}}, "cases": [{"id": "short", "messages": ` + userMsg + `, "checks": {"max_chars": 10}}]}`, []string{
			`workloads/examples/chat.json: case "short": checks.max_chars: max_chars 10 is less than min_chars 100, so every response would fail`,
		}},
		{"tags null and number", `{"cases": [{"messages": ` + userMsg + `, "tags": null}, {"messages": ` + userMsg + `, "tags": 3}]}`, []string{
			`workloads/examples/chat.json: case #1: tags: want a string or a list of strings, got null`,
			`workloads/examples/chat.json: case #2: tags: want a string or a list of strings, got 3`,
		}},
		{"messages problems", `{"cases": [
			{"id": "none"},
			{"id": "null", "messages": null},
			{"id": "empty", "messages": []},
			{"id": "shapes", "messages": ["hi", {"role": "user"}, {"content": "x"}, {}, {"role": 1, "content": "x"}, {"role": "usr", "content": "x"}, {"role": "robot", "content": "x"}]}]}`, []string{
			`workloads/examples/chat.json: case "none": messages: missing; give "messages" or a request_path file that has them`,
			`workloads/examples/chat.json: case "null": messages: want a non-empty list of message objects, got null`,
			`workloads/examples/chat.json: case "empty": messages: want a non-empty list of message objects, got []`,
			`workloads/examples/chat.json: case "shapes": messages[0]: want an object with "role" and "content", got "hi"`,
			`workloads/examples/chat.json: case "shapes": messages[1]: missing "content"`,
			`workloads/examples/chat.json: case "shapes": messages[2]: missing "role"`,
			`workloads/examples/chat.json: case "shapes": messages[3]: missing "role" and "content"`,
			`workloads/examples/chat.json: case "shapes": messages[4].role: want a string, got 1`,
			`workloads/examples/chat.json: case "shapes": messages[5].role: unknown role "usr" (did you mean "user"?): want one of system, developer, user, assistant, tool, function`,
			`workloads/examples/chat.json: case "shapes": messages[6].role: unknown role "robot": want one of system, developer, user, assistant, tool, function`,
		}},
		{"duplicate ids", `{"cases": [{"id": "a", "messages": ` + userMsg + `}, {"id": "case_3", "messages": ` + userMsg + `}, {"messages": ` + userMsg + `}, {"id": "a", "messages": ` + userMsg + `}]}`, []string{
			`workloads/examples/chat.json: case #3: id: generated id "case_3" is already used by case #2; give this case an id`,
			`workloads/examples/chat.json: case "a": id: duplicate case id "a" (case #1 has it too)`,
		}},
		{"invalid JSON", "{\n  \"cases\": [\n    {\"id\": \"x\",}\n  ]\n}", []string{
			`workloads/examples/chat.json: invalid JSON at line 3, column 16: invalid character '}' looking for beginning of object key string`,
		}},
		{"truncated JSON", `{"cases": [`, []string{`workloads/examples/chat.json: invalid JSON at line 1, column 12: unexpected end of JSON input`}},
		{"trailing data", `{"cases": []} {}`, []string{`workloads/examples/chat.json: invalid JSON at line 1, column 15: invalid character '{' after top-level value`}},
	} {
		w, err := Parse([]byte(tc.src), "workloads/examples/chat.json")
		assert.Nilf(t, w, "%s: no workload on error", tc.name)
		require.Errorf(t, err, "%s: must fail", tc.name)
		assert.Equalf(t, tc.want, problems(t, err), "%s: problems", tc.name)
	}
}

func TestLoadErrorFormat(t *testing.T) {
	_, err := Parse([]byte(`{"defaults": {"max_token": 5}, "cases": [{"id": "greet", "messages": `+userMsg+`, "checks": {"min_chars": "x"}}]}`), "workloads/examples/chat.json")
	assert.EqualError(t, err, `workload: load workloads/examples/chat.json: 2 problems:
workloads/examples/chat.json: defaults.max_token: unknown key (did you mean "max_tokens"?)
workloads/examples/chat.json: case "greet": checks.min_chars: want an integer >= 0, got "x"`, "header and one problem per line")
	var fe *FieldError
	require.True(t, errors.As(err, &fe), "errors.As finds a *FieldError")
	assert.Equal(t, FieldError{File: "workloads/examples/chat.json", Field: "defaults.max_token", Err: fe.Err}, *fe, "first problem fields")

	_, err = Parse([]byte(`[]`), "w.json")
	assert.EqualError(t, err, "workload: load w.json: 1 problem:\nw.json: want a JSON object at the top level, got []", "singular header")

	_, err = Parse([]byte(`[]`), "")
	assert.EqualError(t, err, "workload: load : 1 problem:\nwant a JSON object at the top level, got []", "no file part without a path")
}

func TestFieldErrorFormat(t *testing.T) {
	base := errors.New("boom")
	for _, tc := range []struct {
		fe   FieldError
		want string
	}{
		{FieldError{File: "w.json", CaseID: "greet", CaseIndex: 2, Field: "checks.min_chars", Err: base}, `w.json: case "greet": checks.min_chars: boom`},
		{FieldError{File: "w.json", CaseIndex: 2, Field: "messages", Err: base}, `w.json: case #2: messages: boom`},
		{FieldError{File: "w.json", Err: base}, `w.json: boom`},
		{FieldError{Field: "cases", Err: base}, `cases: boom`},
	} {
		assert.Equal(t, tc.want, tc.fe.Error(), "FieldError.Error")
		assert.ErrorIs(t, &tc.fe, base, "Unwrap returns Err")
	}
}

func TestRequestPathErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"w.json": `{"cases": [
			{"id": "missing", "request_path": "nope.json"},
			{"id": "list", "request_path": "list.json"},
			{"id": "broken", "request_path": "broken.json"},
			{"id": "types", "request_path": "types.json"},
			{"id": "msgs", "request_path": "msgs.json"},
			{"id": "notstr", "request_path": 3, "messages": ` + userMsg + `},
			{"id": "dir", "request_path": ".", "messages": ` + userMsg + `}
		]}`,
		"list.json":   `[]`,
		"broken.json": "{\n\"messages\": }",
		"types.json":  `{"max_tokens": "8", "enable_thinking": "yes", "messages": ` + userMsg + `}`,
		"msgs.json":   `{"messages": [{"role": "user"}]}`,
	})
	wpath := filepath.Join(dir, "w.json")
	_, err := Load(wpath)
	got := problems(t, err)
	rel := func(s string) string { return strings.ReplaceAll(s, "DIR", dir) }
	assert.Equal(t, []string{
		rel(`DIR/w.json: case "missing": request_path: open DIR/nope.json: no such file or directory`),
		rel(`DIR/w.json: case "missing": messages: missing; give "messages" or a request_path file that has them`),
		rel(`DIR/w.json: case "list": request_path: list.json: want a JSON object, got []`),
		rel(`DIR/w.json: case "list": messages: missing; give "messages" or a request_path file that has them`),
		rel(`DIR/w.json: case "broken": request_path: broken.json: invalid JSON at line 2, column 13: invalid character '}' looking for beginning of value`),
		rel(`DIR/w.json: case "broken": messages: missing; give "messages" or a request_path file that has them`),
		rel(`DIR/w.json: case "types": request_path: types.json: max_tokens: want a positive integer, got "8"`),
		rel(`DIR/w.json: case "types": request_path: types.json: enable_thinking: want true or false, got "yes"`),
		rel(`DIR/w.json: case "msgs": request_path: msgs.json: messages[0]: missing "content"`),
		rel(`DIR/w.json: case "notstr": request_path: want a string, got 3`),
		rel(`DIR/w.json: case "dir": request_path: DIR: not a regular file`),
	}, got, "request file problems name the case and the file")
	var pe *fs.PathError
	assert.True(t, errors.As(err, &pe), "the missing request file's *fs.PathError is reachable")
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.json"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "read errors wrap the os error")
	assert.Contains(t, err.Error(), "workload: load ", "read errors carry the package prefix")
}

func TestRealData(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "realdata", "quality-contract-smoke.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real data not available at %s (expected next to the module as ../shared/realdata): %v", path, err)
	}
	w, err := Load(path)
	require.NoError(t, err, "the real smoke workload loads")
	assert.Equal(t, "quality-contract-smoke", w.Name, "name")
	assert.Equal(t, "Small contract-style workload demonstrating bench-serve quality checks.", w.Description, "description")
	assert.Empty(t, w.CachePolicy, "no cache policy")
	require.Len(t, w.Cases, 1, "one case")
	c := w.Cases[0]
	assert.Equal(t, "python-palindrome", c.ID, "id")
	assert.Equal(t, []string{"code", "quality"}, c.Tags, "tags")
	require.Len(t, c.Messages, 1, "one message")
	assert.Equal(t, "user", c.Messages[0]["role"], "role")
	assert.Contains(t, c.Messages[0]["content"], "palindrome", "content")
	assert.Equal(t, 256, *c.MaxTokens, "max_tokens from defaults")
	assert.False(t, *c.EnableThinking, "enable_thinking from defaults")
	assert.Equal(t, 30000.0, *c.PolicyTimeoutMS, "policy_timeout_ms from defaults")
	assert.Nil(t, c.ExtraBody, "no extra body")
	s := c.Checks
	require.NotNil(t, s, "checks")
	assert.Equal(t, []string{"stop"}, s.FinishReason, "finish_reason")
	assert.Equal(t, 80, *s.MinChars, "case min_chars overrides defaults' 40")
	var req, forb []string
	for _, p := range s.RequiredRegex {
		req = append(req, p.Source)
	}
	for _, p := range s.ForbiddenRegex {
		forb = append(forb, p.Source)
	}
	assert.Equal(t, []string{"def ", "-> bool"}, req, "required_regex")
	assert.Equal(t, []string{"<think>", "I cannot", "<think>", "TODO"}, forb, "forbidden_regex concatenated like the reference (duplicates kept)")

	good := "def is_palindrome(s: str) -> bool:\n    return s == s[::-1]\n\nprint(is_palindrome(\"racecar\"))  # True"
	assert.Empty(t, checks.Evaluate(s, checks.Response{StatusCode: 200, FinishReason: "stop", Content: good}), "a good answer passes")
	issues := checks.Evaluate(s, checks.Response{StatusCode: 200, FinishReason: "stop", Content: "<think>hmm</think> I cannot do that"})
	var msgs []string
	for _, is := range issues {
		msgs = append(msgs, is.String())
	}
	assert.Equal(t, []string{
		"content shorter than min_chars=80",
		"required_regex did not match: def ",
		"required_regex did not match: -> bool",
		"forbidden_regex matched: <think>",
		"forbidden_regex matched: I cannot",
		"forbidden_regex matched: <think>",
	}, msgs, "a bad answer fails with the reference's issues")
}

func TestDefaultsSLO(t *testing.T) {
	w := mustParse(t, `{"defaults": {"slo": ["ttft_p95_ms <= 500", "error_rate <= 0.01"]}, "cases": [{"messages": `+userMsg+`}]}`)
	require.Len(t, w.SLO, 2, "both thresholds parsed at load")
	assert.Equal(t, []string{"ttft_p95_ms <= 500", "error_rate <= 0.01"}, []string{w.SLO[0].Expr, w.SLO[1].Expr}, "as written")
	assert.Equal(t, 500.0, w.SLO[0].Value, "typed")
	assert.Nil(t, mustParse(t, `{"cases": [{"messages": `+userMsg+`}]}`).SLO, "no slo: nil")

	_, err := Parse([]byte(`{"defaults": {"slo": ["ttft_p95 <= 500", 3]}, "cases": [{"messages": `+userMsg+`}]}`), "workloads/examples/chat.json")
	require.Error(t, err)
	assert.Equal(t, []string{
		`workloads/examples/chat.json: defaults.slo[0]: load: threshold "ttft_p95 <= 500": ttft is a time: add a unit (_ms, _s or _us): bad threshold`,
		`workloads/examples/chat.json: defaults.slo[1]: want a threshold string like "ttft_p95_ms <= 500", got 3`,
	}, problems(t, err), "each bad threshold named by index, checked at load time")

	_, err = Parse([]byte(`{"defaults": {"slo": "ttft_p95_ms <= 500"}, "cases": [{"messages": `+userMsg+`}]}`), "workloads/examples/chat.json")
	require.Error(t, err)
	assert.Equal(t, []string{`workloads/examples/chat.json: defaults.slo: want a list of threshold strings, got "ttft_p95_ms <= 500"`}, problems(t, err))
}

func TestDuplicateKeysAreErrors(t *testing.T) {
	_, err := Parse([]byte(`{"name": "a", "name": "b", "defaults": {"max_tokens": 1, "max_tokens": 2},
		"cases": [{"id": "x", "messages": `+userMsg+`},
		          {"id": "y", "id": "z", "messages": `+userMsg+`, "checks": {"min_chars": 1, "min_chars": 2},
		           "extra_body": {"tools": [{"a": 1, "a": 2}]}}]}`), "workloads/examples/chat.json")
	require.Error(t, err)
	assert.Equal(t, []string{
		`workloads/examples/chat.json: name: key written twice in one object; JSON keeps only the last value, so remove one`,
		`workloads/examples/chat.json: defaults.max_tokens: key written twice in one object; JSON keeps only the last value, so remove one`,
		`workloads/examples/chat.json: case #2: id: key written twice in one object; JSON keeps only the last value, so remove one`,
		`workloads/examples/chat.json: case #2: checks.min_chars: key written twice in one object; JSON keeps only the last value, so remove one`,
		`workloads/examples/chat.json: case #2: extra_body.tools[0].a: key written twice in one object; JSON keeps only the last value, so remove one`,
	}, problems(t, err), "every repeated key, wherever it is, with its path")

	w := mustParse(t, `{"cases": [{"id": "a", "messages": [{"role": "user", "content": "x"}, {"role": "user", "content": "y"}]}]}`)
	assert.Len(t, w.Cases[0].Messages, 2, "the same key in different objects is fine")
}

func TestExtraBodyCannotSetWhatBenchserveSets(t *testing.T) {
	_, err := Parse([]byte(`{"defaults": {"extra_body": {"stream": false}},
		"cases": [{"id": "a", "messages": `+userMsg+`, "extra_body": {"max_tokens": 3, "model": "m", "temperature": 0}}]}`), "workloads/examples/chat.json")
	require.Error(t, err)
	assert.Equal(t, []string{
		`workloads/examples/chat.json: defaults.extra_body.stream: set by benchserve, not by extra_body: benchserve always streams`,
		`workloads/examples/chat.json: case "a": extra_body.max_tokens: set by benchserve, not by extra_body: use max_tokens`,
		`workloads/examples/chat.json: case "a": extra_body.model: set by benchserve, not by extra_body: the model comes from --model or BENCHSERVE_MODEL`,
	}, problems(t, err))
}

// TestPolicyTimeoutOutOfRange: a positive policy timeout below 1 ms or
// beyond what a Go duration holds is an error, never a silent "no timeout".
func TestPolicyTimeoutOutOfRange(t *testing.T) {
	for _, v := range []string{"1e300", "1e-7", "0.5"} {
		_, err := Parse([]byte(`{"cases": [{"id": "a", "messages": [{"role": "user", "content": "hi"}], "policy_timeout_ms": `+v+`}]}`), "w.json")
		require.Error(t, err, "policy_timeout_ms %s is refused", v)
		assert.Contains(t, err.Error(), `w.json: case "a": policy_timeout_ms: `+v+` is out of range`, "the error names file, case and field")
	}
	w, err := Parse([]byte(`{"cases": [{"id": "a", "messages": [{"role": "user", "content": "hi"}], "policy_timeout_ms": 1500}]}`), "w.json")
	require.NoError(t, err)
	assert.Equal(t, 1500.0, *w.Cases[0].PolicyTimeoutMS, "a usual timeout loads")
}

func TestLoadRefusesADeviceBeforeReading(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	_, err := Load("/dev/zero")
	require.Error(t, err, "a device is not a workload")
	assert.Contains(t, err.Error(), "/dev/zero: not a regular file", "refused by what it is, before reading")
}
