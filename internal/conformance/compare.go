package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/results"
)

// compare judges the contracts that compare a streamed answer with a
// non-streamed one: usage.prompt_agrees, nonstream.agrees and
// tools.stream_agrees (which also holds the non-streamed tool calls to
// the rules of the streamed ones: nonStreamedCalls).
func (r *contractRun) compare(ctx context.Context) Outcome {
	st, err := r.stream(ctx, 0)
	if err != nil {
		return failed("", "", "%v", err)
	}
	if o, bad := st.failedStream(); bad {
		return st.with(o)
	}
	ex, err := r.post(ctx)
	if err != nil {
		return failed("", "", "%v", err)
	}
	if o := r.judgeCompletion(ex); o.Verdict != contract.Pass {
		o.Evidence = "the non-streamed answer: " + o.Evidence
		return st.with(o)
	}
	var c nonStreamed
	_ = json.Unmarshal(ex.body, &c)
	msg := c.Choices[0].Message
	both := func(format string, args ...any) Outcome {
		return st.with(failed(st.sentText()+" and non-streamed", "streamed "+st.usageText()+"; non-streamed "+ex.gotText(), format, args...))
	}
	res := st.res
	switch r.kind {
	case contract.UsagePromptAgrees:
		if res.Usage == nil || c.Usage == nil {
			return both("usage missing (streamed %v, non-streamed %v)", res.Usage != nil, c.Usage != nil)
		}
		if res.Usage.PromptTokens != c.Usage.PromptTokens {
			return both("prompt_tokens %d streamed, %d not streamed", res.Usage.PromptTokens, c.Usage.PromptTokens)
		}
		return st.with(pass("prompt_tokens %d both ways", c.Usage.PromptTokens))
	case contract.StreamAgrees:
		content := ""
		if msg.Content != nil {
			content = *msg.Content
		}
		if strings.TrimSpace(content) != strings.TrimSpace(res.Content) {
			return st.with(failed(st.sentText()+" and non-streamed", fmt.Sprintf("streamed content %q; non-streamed %q", contract.Cut(res.Content, 180), contract.Cut(content, 180)), "the contents differ"))
		}
		if a, b := callNames(res.ToolCalls), callNames(msg.ToolCalls); !reflect.DeepEqual(a, b) {
			return both("tool calls %v streamed, %v not streamed", a, b)
		}
		return st.with(pass("the same content (%d chars) and tool calls both ways", len(content)))
	case contract.ToolArgsAgree:
		a, b := res.ToolCalls, msg.ToolCalls
		if len(a) == 0 && len(b) == 0 {
			return st.with(skip("no tool call came either way"))
		}
		got := func() string {
			x, _ := json.Marshal(a)
			y, _ := json.Marshal(b)
			return fmt.Sprintf("streamed %s; non-streamed %s", contract.Cut(string(x), 200), contract.Cut(string(y), 200))
		}
		// The non-streamed calls keep the rules tools.ids and
		// tools.finish_reason judge on the stream.
		if o, ok := nonStreamedCalls(c, ex); !ok {
			return st.with(o)
		}
		if len(a) != len(b) {
			return st.with(failed(st.sentText()+" and non-streamed", got(), "%d tool call(s) streamed, %d not streamed", len(a), len(b)))
		}
		for i := range a {
			if a[i].Function.Name != b[i].Function.Name || !sameJSON(a[i].Function.Arguments, b[i].Function.Arguments) {
				return st.with(failed(st.sentText()+" and non-streamed", got(), "tool call %d differs", i))
			}
		}
		return st.with(pass("%d tool call(s), the same arguments both ways", len(a)))
	}
	return failed("", "", "check %s: not a comparison", r.kind)
}

// callNames is the function name of every tool call, in order.
func callNames(calls []results.ToolCall) []string {
	out := []string{}
	for _, c := range calls {
		out = append(out, c.Function.Name)
	}
	return out
}

// sameJSON reports whether two JSON texts hold equal values (key order
// and spacing aside); text that is not JSON is compared as is.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

// nonStreamedCalls judges a non-streamed answer's tool calls by the rules
// the tools.* contracts judge on a stream: each call has an id, no id is
// used twice, and a choice with calls has finish_reason "tool_calls".
func nonStreamedCalls(c nonStreamed, ex *exchange) (Outcome, bool) {
	for i, ch := range c.Choices {
		if ch.Message == nil || len(ch.Message.ToolCalls) == 0 {
			continue
		}
		seen := map[string]bool{}
		for k, call := range ch.Message.ToolCalls {
			if call.ID == "" {
				return failed(ex.sentText(), ex.gotText(), "the non-streamed answer: choices[%d] tool call %d has no id", i, k), false
			}
			if seen[call.ID] {
				return failed(ex.sentText(), ex.gotText(), "the non-streamed answer: tool call id %s is used twice", present.Name(call.ID)), false
			}
			seen[call.ID] = true
		}
		if f := ch.FinishReason; f == nil || *f != "tool_calls" {
			got := "none"
			if f != nil {
				got = present.Name(*f)
			}
			return failed(ex.sentText(), ex.gotText(), "the non-streamed answer: choices[%d] has %d tool call(s) but finish_reason %s", i, len(ch.Message.ToolCalls), got), false
		}
	}
	return Outcome{}, true
}
