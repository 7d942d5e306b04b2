package datasets

import (
	"encoding/json"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/workloads"
)

// OutputControl says how a request asks the server not to stop before its
// asked output length (issue 27 item 2): max_tokens always caps it;
// these ask the server to reach it.
type OutputControl struct {
	// IgnoreEOS sends "ignore_eos": true (vLLM, SGLang, llama.cpp).
	IgnoreEOS bool `json:"ignore_eos"`
	// MinTokens sends "min_tokens" equal to the asked length (vLLM,
	// SGLang).
	MinTokens bool `json:"min_tokens"`
}

// Case returns the workload case that sends r as request index (its
// 0-based position in the run): r's messages, max_tokens r.OutputTokens
// (unset when 0: the workload default), out's fields in the extra body,
// and a finish_reason check accepting "stop" and "length" (a generated
// request measures load; ending at its cap is no failure). tags are the
// case's tags (the generator's name, say).
func (r Request) Case(index int, out OutputControl, tags ...string) workloads.Case {
	c := workloads.Case{
		ID:       r.ID,
		Index:    index,
		Messages: r.Messages,
		Tags:     tags,
		Checks: &checks.Spec{FinishReason: []string{"stop", "length"},
			Raw: map[string]any{"finish_reason": []any{"stop", "length"}}},
	}
	if r.OutputTokens > 0 {
		n := r.OutputTokens
		c.MaxTokens = &n
		extra := map[string]any{}
		if out.IgnoreEOS {
			extra["ignore_eos"] = true
		}
		if out.MinTokens {
			extra["min_tokens"] = n
		}
		if len(extra) > 0 {
			c.ExtraBody = extra
			c.ExtraBodyJSON, _ = json.Marshal(extra) // bool and int values always marshal; keys sorted
		}
	}
	return c
}
