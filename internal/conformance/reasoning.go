package conformance

import (
	"sort"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
)

// reasoning judges reasoning.separated: no <think> or </think> in the
// content, and
// the reasoning (when any came) in delta.reasoning_content or
// delta.reasoning.
func reasoning(st *streamed) Outcome {
	fields := map[string]bool{}
	for _, v := range st.chunks {
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			if ch.Delta == nil {
				continue
			}
			if ch.Delta.ReasoningContent != nil && *ch.Delta.ReasoningContent != "" {
				fields["reasoning_content"] = true
			}
			if ch.Delta.Reasoning != nil && *ch.Delta.Reasoning != "" {
				fields["reasoning"] = true
			}
		}
	}
	// A template that opens <think> in the prompt leaves only the closing
	// tag in a content that holds the reasoning: as much a leak.
	for _, tag := range []string{"<think>", "</think>"} {
		if i := strings.Index(st.res.Content, tag); i >= 0 {
			return failed("", "content: "+contract.Cut(st.res.Content[max(0, i-EvidenceRunes/2):], EvidenceRunes), "the content holds %s: the reasoning leaked into it", tag)
		}
	}
	if len(fields) == 0 {
		return skip("no reasoning arrived (a model that does not think, or one told not to)")
	}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Strings(names)
	return pass("reasoning in delta.%s", strings.Join(names, " and delta."))
}
