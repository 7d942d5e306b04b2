package sweep

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchserve/benchserve/results"
)

//go:embed prompts/*.json
var builtinFS embed.FS

// BuiltinNames are the prompt sets embedded in the binary, sorted
// (reference: _BUILTIN_NAMES). The texts are benchserve's own, but each set
// has the reference's number of prompts and, prompt by prompt, about the
// same size and kind of content (prose, code, logs): within 10% of the
// reference's by a tokenizer-like estimate (sweep's tests), so token
// counts should agree about as closely: short (5 one-line questions,
// about 20 tokens), medium (5 tasks with code, YAML or SQL, 400 to 800
// tokens), long (3 prompts: logs, an API specification, a design brief;
// about 2.5k, 2.6k and 750 tokens) and thinking (3 reasoning puzzles,
// 300 to 500 tokens). To send the reference's exact texts, point
// LoadPromptSetFrom (the CLI's --prompts-dir) at a directory holding
// them, such as an installed vllm-mlx's bench_serve_prompts/.
var BuiltinNames = []string{"long", "medium", "short", "thinking"}

// ErrPromptSetNotFound is returned (wrapped) by LoadPromptSet when the name
// is neither a builtin set nor an existing file. The sweep skips such sets
// with a warning, as the reference does for its FileNotFoundError.
var ErrPromptSetNotFound = errors.New("prompt set not found")

// LoadPromptSet loads a prompt set by builtin name (see BuiltinNames) or
// file path (reference: load_prompt_set), used as given (a leading "~" is
// the door's to expand).
//
// Two file formats are accepted, chosen by the first entry:
//
//	flat:          [{"role":"user","content":"…"}, …]           each message is one prompt
//	multi-message: [[{"role":"system",…},{"role":"user",…}], …] each list is one chat history
//
// It returns one message list per prompt, never empty. Errors: a missing
// file wraps ErrPromptSetNotFound (message as the reference's); an
// unreadable file, invalid JSON, an empty or non-list document, or any
// entry that is not a message object with "role" and "content" (or, in the
// multi-message format, a non-empty list of such) is an error naming the
// entry's index, e.g. `sweep: prompt set "x.json": entry 2: message 0 must
// include role and content`. Unlike the reference, which only looks at the
// first entry, every entry is validated.
func LoadPromptSet(nameOrPath string) ([][]results.Message, error) {
	return LoadPromptSetFrom("", nameOrPath)
}

// LoadPromptSetFrom is LoadPromptSet with builtin names resolved from dir
// first: with dir set, a builtin name loads dir/<name>.json, so an installed vllm-mlx's bench_serve_prompts/
// directory reproduces the reference's prompts under the same labels. A
// builtin name missing from dir is an error wrapping ErrPromptSetNotFound
// (never a silent fallback to the embedded texts, which would mix two
// prompt sets under one label). With dir "" it is LoadPromptSet. Paths
// (non-builtin names) are not affected by dir.
func LoadPromptSetFrom(dir, nameOrPath string) ([][]results.Message, error) {
	var (
		data []byte
		err  error
	)
	if dir != "" && slices.Contains(BuiltinNames, nameOrPath) {
		target := filepath.Join(dir, nameOrPath+".json")
		data, err = readPromptFile(target)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("sweep: builtin prompt set '%s' not found at %s (prompts dir): %w", nameOrPath, target, ErrPromptSetNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("sweep: prompt set %q: %w", target, err)
		}
		return parsePromptSet(data, target)
	}
	if slices.Contains(BuiltinNames, nameOrPath) {
		data, err = builtinFS.ReadFile("prompts/" + nameOrPath + ".json")
		if err != nil {
			return nil, fmt.Errorf("sweep: builtin prompt set '%s' not found: %w", nameOrPath, ErrPromptSetNotFound)
		}
	} else {
		path := nameOrPath
		data, err = readPromptFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("sweep: unknown prompt set name or missing file: '%s'. Builtin names are: %s: %w",
				nameOrPath, pyList(BuiltinNames), ErrPromptSetNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("sweep: prompt set %q: %w", nameOrPath, err)
		}
	}
	return parsePromptSet(data, nameOrPath)
}

// parsePromptSet decodes and validates a prompt set document.
func parsePromptSet(data []byte, name string) ([][]results.Message, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || len(raw) == 0 {
		if err == nil || isTypeError(err) {
			return nil, fmt.Errorf("sweep: prompt file must be a non-empty JSON list: %s", name)
		}
		return nil, fmt.Errorf("sweep: prompt set %q: invalid JSON: %w", name, err)
	}
	first := strings.TrimSpace(string(raw[0]))
	flat := strings.HasPrefix(first, "{")
	if !flat && !strings.HasPrefix(first, "[") {
		return nil, fmt.Errorf("sweep: prompt entries must be dict or list, got %s in %s", jsonKind(first), name)
	}
	var errs []error
	out := make([][]results.Message, 0, len(raw))
	for i, entry := range raw {
		if flat {
			m, err := decodeMessage(entry)
			if err != nil {
				errs = append(errs, fmt.Errorf("sweep: prompt set %q: entry %d: %w", name, i, err))
				continue
			}
			out = append(out, []results.Message{m})
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(entry, &list); err != nil {
			errs = append(errs, fmt.Errorf("sweep: prompt set %q: entry %d: want a list of messages (the first entry is a list), got %s", name, i, jsonKind(strings.TrimSpace(string(entry)))))
			continue
		}
		if len(list) == 0 {
			errs = append(errs, fmt.Errorf("sweep: prompt set %q: entry %d: messages must be a non-empty list", name, i))
			continue
		}
		msgs := make([]results.Message, 0, len(list))
		for j, item := range list {
			m, err := decodeMessage(item)
			if err != nil {
				errs = append(errs, fmt.Errorf("sweep: prompt set %q: entry %d: message %d: %w", name, i, j, err))
				continue
			}
			msgs = append(msgs, m)
		}
		out = append(out, msgs)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// decodeMessage decodes one message object and requires role and content
// (reference: _require_message_list's per-message checks).
func decodeMessage(raw json.RawMessage) (results.Message, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("must be a message object, got %s", jsonKind(strings.TrimSpace(string(raw))))
	}
	_, hasRole := m["role"]
	_, hasContent := m["content"]
	if !hasRole || !hasContent {
		return nil, errors.New("must include role and content")
	}
	if _, ok := m["role"].(string); !ok {
		return nil, fmt.Errorf("role must be a string, got %s", jsonKind(jsonText(m["role"])))
	}
	return m, nil
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// jsonKind names the JSON type of a value's text by Python's type names,
// as the reference's messages do.
func jsonKind(s string) string {
	switch {
	case s == "null":
		return "NoneType"
	case s == "true" || s == "false":
		return "bool"
	case strings.HasPrefix(s, "\""):
		return "str"
	case strings.HasPrefix(s, "{"):
		return "dict"
	case strings.HasPrefix(s, "["):
		return "list"
	case strings.ContainsAny(s, ".eE"):
		return "float"
	default:
		return "int"
	}
}

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// pyList renders names like Python's repr of a list of str.
func pyList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}
