package checks

import (
	"regexp"

	"github.com/benchserve/benchserve/results"
)

// Spec is a parsed, validated quality-check block of one workload case (the
// reference's merged checks dict). Every field is optional; an unset field
// checks nothing. Regex patterns are compiled when the Spec is parsed, so a
// bad pattern fails the workload load, not the run.
type Spec struct {
	// FinishReason lists the allowed finish_reason values; nil means any.
	FinishReason []string
	// RequiredRegex patterns must each match the content (Python re
	// semantics with MULTILINE, see compilePattern).
	RequiredRegex []Pattern
	// ForbiddenRegex patterns must each not match the content.
	ForbiddenRegex []Pattern
	// MinChars and MaxChars bound the content length in Unicode code points
	// (Python's len on str); nil means unbounded.
	MinChars, MaxChars *int
	// JSON requires the content to parse as JSON.
	JSON bool
	// ToolCallCount is the exact number of tool calls expected; nil means any.
	ToolCallCount *int
	// ToolCallNames is the expected multiset of function names, order
	// independent; nil means unchecked, an empty slice means "none".
	ToolCallNames []string
	// ToolCallArgsRequiredKeys lists, per function name and in the order the
	// workload wrote them, the keys its JSON arguments must contain.
	ToolCallArgsRequiredKeys []RequiredKeys
	// NoToolCalls requires that no tool call was emitted.
	NoToolCalls bool
	// Raw is the merged checks object as written (after defaults merging),
	// kept for the results payload.
	Raw map[string]any
}

// Pattern is one regex check: the source as written in the workload and
// its compiled RE2 translation.
type Pattern struct {
	Source string
	Re     *regexp.Regexp
}

// RequiredKeys is one entry of tool_call_args_required_keys.
type RequiredKeys struct {
	Function string
	Keys     []string
}

// Response is what the checks look at: the outcome of one streamed chat
// completion (one choice of it). FinishReason is empty when the stream
// never sent one.
type Response struct {
	StatusCode   int
	FinishReason string
	Content      string
	ToolCalls    []results.ToolCall
	// Reasoning is the choice's reasoning text; it is not the answer, but
	// an empty answer says that the model answered in reasoning only.
	Reasoning string
	// Refusal is the choice's delta.refusal text: the model's answer when
	// it declines; an empty answer with a refusal says "refused: …".
	Refusal string
}

// Issue is one failed check. Check names the check key (for example
// "required_regex", or "response" for the basic validation); Message is the
// issue text, identical to the reference's issue string.
type Issue struct {
	Check   string
	Message string
}
