package workloads

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/benchserve/benchserve/results"
)

// PromptOptions shape the cases FromPrompts builds. The zero value sends
// results.DefaultMaxTokens, no enable_thinking, no extra body, and judges each
// answer by the basic validation only (a length ending fails it, as the
// reference's validate_response; the engine's verdict of such an answer
// is results.OutcomeCapped, not a failure).
type PromptOptions struct {
	// MaxTokens is each case's max_tokens; 0 means results.DefaultMaxTokens.
	MaxTokens int
	// EnableThinking is sent when non-nil.
	EnableThinking *bool
	// ExtraBody is merged into every request body; nil sends none.
	ExtraBody map[string]any
}

// FromPrompts is the one way a prompt set (one message list per prompt,
// as a prompt-set file holds them) becomes workload cases: one case per
// prompt, in order, with ids "<label>-<i>" (label: PromptSetLabel of
// name, i 0-based) and the tag "prompts". The workload is named name and
// has no file (Path is name). It does not copy the message lists.
func FromPrompts(name string, prompts [][]results.Message, o PromptOptions) *Workload {
	maxTokens := o.MaxTokens
	if maxTokens <= 0 {
		maxTokens = results.DefaultMaxTokens
	}
	defaults := map[string]any{"max_tokens": maxTokens}
	var extraJSON json.RawMessage
	if o.ExtraBody != nil {
		extraJSON, _ = json.Marshal(o.ExtraBody) // a decoded JSON object always marshals
	}
	defaultsJSON, _ := json.Marshal(defaults)
	w := &Workload{Name: name, Path: name, Defaults: defaults, DefaultsJSON: defaultsJSON}
	label := PromptSetLabel(name)
	for i, msgs := range prompts {
		mt := maxTokens
		w.Cases = append(w.Cases, Case{
			ID:             fmt.Sprintf("%s-%d", label, i),
			Index:          i,
			Messages:       msgs,
			MaxTokens:      &mt,
			EnableThinking: o.EnableThinking,
			ExtraBody:      o.ExtraBody,
			ExtraBodyJSON:  extraJSON,
			Tags:           []string{"prompts"},
		})
	}
	return w
}

// PromptSetLabel names a prompt set in case ids and benchmark names: a
// builtin name ("short") as is, a file by its base name without
// extension ("sets/chat.json" → "chat").
func PromptSetLabel(set string) string {
	if !strings.ContainsAny(set, `/\`) && filepath.Ext(set) == "" {
		return set
	}
	base := set
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if i := strings.LastIndex(base, "."); i > 0 {
		base = base[:i]
	}
	return base
}
