package conformance

import (
	"encoding/json"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/schema"
)

// tools judges the tools.* contracts judged on one stream: tool_choice
// none, required and named; at most one call with parallel_tool_calls
// false; and, when a call came (else a skip), arguments valid against
// the tool's schema, distinct ids and finish_reason "tool_calls".
func (r *contractRun) tools(st *streamed) Outcome {
	res := st.res
	calls := res.ToolCalls
	callText := func() string {
		b, _ := json.Marshal(calls)
		return "tool calls: " + contract.Cut(string(b), EvidenceRunes)
	}
	switch r.kind {
	case contract.ToolChoiceNone:
		if len(calls) > 0 {
			return failed("", callText(), "%d tool call(s) came for tool_choice \"none\"", len(calls))
		}
		if res.FinishReason == "tool_calls" {
			return failed("", st.finishText(), `finish_reason "tool_calls" with no tool call`)
		}
		return pass("no tool call, finish_reason %q", nm(res.FinishReason))
	case contract.ToolChoiceRequired:
		if len(calls) == 0 {
			return failed("", "content: "+contract.Cut(res.Content, EvidenceRunes), "no tool call came")
		}
		return pass("%d tool call(s)", len(calls))
	case contract.ToolChoiceNamed:
		want := contract.NamedChoice(r.in.ExtraBody["tool_choice"])
		if want == "" {
			return failed("", "", "the case's tool_choice names no function")
		}
		if len(calls) == 0 {
			return failed("", "content: "+contract.Cut(res.Content, EvidenceRunes), "no tool call came; want a call to %q", want)
		}
		for _, c := range calls {
			if c.Function.Name != want {
				return failed("", callText(), "a call to %q; tool_choice names %q", nm(c.Function.Name), want)
			}
		}
		return pass("%d call(s) to %q", len(calls), want)
	case contract.ToolParallelFalse:
		if len(calls) > 1 {
			return failed("", callText(), "%d tool calls came with parallel_tool_calls false", len(calls))
		}
		return pass("%d tool call(s)", len(calls))
	}
	if len(calls) == 0 {
		return skip("no tool call came to check (the model answered: %s)", contract.Cut(res.Content, 80))
	}
	switch r.kind {
	case contract.ToolArguments:
		schemas := contract.ToolSchemas(r.in.ExtraBody["tools"])
		for _, c := range calls {
			sch, ok := schemas[c.Function.Name]
			if !ok {
				return failed("", callText(), "a call to %q, which is not one of the request's tools", nm(c.Function.Name))
			}
			if err := schema.Validate(sch, c.Function.Arguments); err != nil {
				return failed("", callText(), "the arguments of %q: %v", nm(c.Function.Name), err)
			}
		}
		return pass("%d call(s) with arguments valid against their schemas", len(calls))
	case contract.ToolCallIDs:
		seen := map[string]bool{}
		for i, c := range calls {
			if c.ID == "" {
				return failed("", callText(), "tool call %d has no id", i)
			}
			if seen[c.ID] {
				return failed("", callText(), "tool call id %q is used twice", nm(c.ID))
			}
			seen[c.ID] = true
		}
		return pass("%d call(s), distinct ids", len(calls))
	case contract.ToolFinishReason:
		if res.FinishReason != "tool_calls" {
			return failed("", st.finishText(), "%d tool call(s) but finish_reason %q", len(calls), nm(res.FinishReason))
		}
		return pass(`finish_reason "tool_calls"`)
	}
	return failed("", "", "check %s: not a tool check", r.kind)
}
