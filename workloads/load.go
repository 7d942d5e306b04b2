package workloads

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Known keys of each object level; anything else is an error.
var (
	topKeys      = []string{"cases", "defaults", "description", "generator", "name"}
	defaultsKeys = []string{"cache_policy", "checks", "enable_thinking", "endpoint", "extra_body", "max_tokens", "policy_timeout_ms", "slo"}
	caseKeys     = []string{"checks", "enable_thinking", "endpoint", "extra_body", "id", "max_tokens", "messages", "policy_timeout_ms", "protocol", "request_path", "tags"}
)

// Load reads and parses the workload file at path (reference:
// load_workload); path is used as it is (the doors expand a leading ~;
// request_path values inside the file are expanded, as in the
// reference). Read errors are returned as
// "workload: load PATH: ..." wrapping the *fs.PathError; a file larger than
// MaxFileSize (or an endless one such as /dev/zero) is refused; problems in
// the content as a *LoadError (see Parse).
func Load(path string) (*Workload, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, fmt.Errorf("workload: load %s: %w", path, err)
	}
	return Parse(data, path)
}

// Parse parses workload JSON (reference: load_workload and
// _build_workload_case). path is used in error messages, for the default
// name (the file name without extension) and to resolve relative
// request_path values (against path's directory, after ~ expansion); it may
// be "" for in-memory workloads without request files.
//
// Format: an object with "name" (string), "description" (string),
// "defaults" (object: max_tokens, enable_thinking, policy_timeout_ms,
// checks, extra_body, cache_policy, slo, endpoint) and "cases" (non-empty
// list of objects: id, messages, request_path, max_tokens,
// enable_thinking, extra_body, policy_timeout_ms, checks, tags, endpoint). JSON null means "not set" everywhere
// except in messages (content may be null) and tags (null is an error, as
// in the reference). Resolution per case:
//   - id: the "id" string, or "case_N" with N the 1-based position; a
//     number or boolean is str() of it (5 → "5", true → "True") and a
//     falsy one (0, false) gives "case_N", as in the reference.
//   - messages: the case's "messages" if the key is present, else the
//     request file's; a non-empty list of objects that have "role" (a
//     string) and "content" keys.
//   - max_tokens (integer > 0), enable_thinking (boolean),
//     policy_timeout_ms (number): the first non-null of case, request
//     file, defaults. A falsy max_tokens (0, false) resolved there means
//     the defaults' max_tokens, else 256 (the reference's `case.max_tokens
//     or defaults.get("max_tokens", 256)`; a falsy defaults.max_tokens,
//     which the reference sends as 0, is treated as unset). A
//     policy_timeout_ms <= 0 is kept: no timeout, within_timeout false.
//   - extra_body: the request file's keys except model, messages,
//     max_tokens, stream, stream_options and enable_thinking, overlaid
//     with the case's extra_body when the case has that key (even null),
//     else with defaults.extra_body; nil when empty. Note that a request
//     file's policy_timeout_ms is both a scalar source and extra body, as
//     in the reference.
//   - endpoint (a benchserve addition): "chat", "responses",
//     "completions" or "embeddings" (parseEndpoint), the case's else the
//     defaults', else chat; any other value is an error.
//   - checks: checks.MergeRaw(defaults.checks, case.checks), then
//     checks.ParseSpec; tool_call_args_required_keys keeps its written
//     order (it is passed to ParseSpec as json.RawMessage).
//   - protocol (a benchserve addition): an object making the case a
//     contract of the OpenAI protocol, parsed into a Protocol (level,
//     check, stream, endpoint, body, raw_body, compare, cancel_after);
//     such a case has no checks (a "checks" key is an error,
//     defaults.checks do not apply) and is judged by its check kind
//     (benchtest.RunConformance, benchserve conformance).
//   - tags: a string or a list; numbers, booleans and null in the list are
//     str() of them (1 → "1", null → "None"), as in the reference; lists
//     and objects in it are an error.
//   - name, description: str() of a number or boolean; a falsy value is
//     unset. "defaults", "checks" and "extra_body" given as a falsy
//     non-object ([], 0, false, "") count as empty, as in the reference.
//   - checks.required_regex, forbidden_regex, tool_call_names: numbers,
//     booleans and null in the list are str() of them. Given as one string
//     they are refused: the reference iterates the string character by
//     character.
//
// Every input accepted only because the reference accepts it is reported in
// Workload.Warnings (file, case and field), so the likely mistake stays
// visible. Invalid UTF-8 is refused with its byte offset.
//
// Stricter than the reference: unknown keys at the top level, in defaults
// and in cases are errors (with a "did you mean" hint), wrongly typed
// values are errors, and duplicate case ids are errors (they name
// subtests). Parse reports every problem it finds, not only the first, as a
// *LoadError of *FieldError; invalid JSON is one problem with its line and
// column. Numbers inside Defaults, Messages and ExtraBody are json.Number,
// which marshals back unchanged.
func Parse(data []byte, path string) (*Workload, error) {
	p := &parser{file: path}
	w := p.parse(data)
	if len(p.problems) > 0 {
		return nil, &LoadError{File: path, Problems: p.problems}
	}
	return w, nil
}

// parse is Parse's pass over the whole document; it records problems and
// warnings on p and returns nil only when the document is unreadable.
func (p *parser) parse(data []byte) *Workload {
	if off := invalidUTF8(data); off >= 0 {
		p.add(at{}, "", "invalid UTF-8 at byte offset %d (workload files are UTF-8; the reference refuses this file too)", off)
		return nil
	}
	root, err := decodeJSON(data)
	if err != nil {
		p.addErr(at{}, "", err)
		return nil
	}
	top, ok := root.(map[string]any)
	if !ok {
		p.add(at{}, "", "want a JSON object at the top level, got %s", describe(root))
		return nil
	}
	p.reportDuplicateKeys(data)
	p.unknownKeys(at{}, "", top, topKeys, nil)
	ordered := orderedRequiredKeys(data)

	_, rawTop, _ := objectMembers(data)

	w := &Workload{Path: p.file}
	w.Name = p.pyStrField(at{}, "name", top["name"])
	if w.Name == "" && p.file != "" {
		base := filepath.Base(p.file)
		w.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	w.Description = p.pyStrField(at{}, "description", top["description"])

	d := p.parseDefaults(w, top["defaults"], rawTop["defaults"], ordered.defaults)

	w.Generator = p.parseGenerator(top["generator"])
	if _, present := top["cases"]; !present && w.Generator != nil {
		w.Warnings = p.warnings // a generator alone: its cases are made by the engine
		return w
	}
	rawCases, ok := top["cases"].([]any)
	if !ok || len(rawCases) == 0 {
		if v, present := top["cases"]; present {
			p.add(at{}, "cases", "want a non-empty list of case objects, got %s", describe(v))
		} else {
			p.add(at{}, "cases", "missing; want a non-empty list of case objects")
		}
		return w
	}
	firstByID := map[string]int{}
	rawCaseList := rawElems(rawTop["cases"])
	for i, item := range rawCases {
		src := caseSource{item: item, index: i}
		if i < len(ordered.cases) {
			src.orderedRK = ordered.cases[i]
		}
		if i < len(rawCaseList) {
			src.raw = rawCaseList[i]
		}
		c, ok := p.buildCase(src, &d)
		if c.ID == "" { // not an object: no id to compare
			continue
		}
		where := at{index: i + 1, id: explicitID(item)}
		if first, dup := firstByID[c.ID]; dup {
			if where.id != "" {
				p.add(where, "id", "duplicate case id %q (case #%d has it too)", c.ID, first)
			} else {
				p.add(where, "id", "generated id %q is already used by case #%d; give this case an id", c.ID, first)
			}
			continue
		}
		firstByID[c.ID] = i + 1
		if ok {
			w.Cases = append(w.Cases, c)
		}
	}
	w.Warnings = p.warnings
	return w
}

// Select returns the cases that have at least one of tags, in file order;
// with no tags it returns all cases.
func (w *Workload) Select(tags []string) []Case {
	if len(tags) == 0 {
		return w.Cases
	}
	want := make(map[string]bool, len(tags))
	for _, t := range tags {
		want[t] = true
	}
	var out []Case
	for _, c := range w.Cases {
		for _, t := range c.Tags {
			if want[t] {
				out = append(out, c)
				break
			}
		}
	}
	return out
}
