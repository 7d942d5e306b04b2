package workloads

import (
	"errors"
	"testing"
)

// FuzzParse checks that Parse never panics and that every failure is a
// *LoadError made of *FieldError (no request files exist in the fuzz
// directory, so request_path problems are FieldErrors too).
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"cases": [{"messages": [{"role": "user", "content": "hi"}]}]}`,
		`{"name": "n", "defaults": {"max_tokens": 5, "checks": {"min_chars": 3, "tool_call_args_required_keys": {"f": ["a"]}}}, "cases": [{"id": "a", "tags": "x", "messages": [{"role": "user", "content": null}], "checks": {"required_regex": ["^def "]}}]}`,
		`{"cases": [{"id": "a"}, {"id": "a", "request_path": "missing.json"}]}`,
		`{"defaults": {"cache_policy": "before_run", "extra_body": {"k": [1, 2.5e3]}}, "cases": [{"extra_body": null, "messages": [{"role":"u","content":"c"}]}]}`,
		`[`, `null`, `{"cases": [1, "x", null, {}]}`, `{"defaults": {"checks": {"required_regex": ["(?<=a)"]}}, "cases": [{}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse(data, "fuzz/w.json")
		if err == nil {
			if w == nil || len(w.Cases) == 0 {
				t.Fatalf("Parse succeeded without cases: %#v", w)
			}
			seen := map[string]bool{}
			for _, c := range w.Cases {
				if seen[c.ID] || len(c.Messages) == 0 {
					t.Fatalf("case %q duplicated or without messages", c.ID)
				}
				seen[c.ID] = true
			}
			return
		}
		var le *LoadError
		if !errors.As(err, &le) || len(le.Problems) == 0 {
			t.Fatalf("error %T %v is not a non-empty *LoadError", err, err)
		}
		for _, p := range le.Problems {
			if p == nil || p.Err == nil || p.File != "fuzz/w.json" {
				t.Fatalf("bad problem %#v", p)
			}
		}
		_ = err.Error()
	})
}
