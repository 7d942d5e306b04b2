package conformance

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/benchserve/benchserve/results"
)

// nonStreamed is a decoded chat.completion.
type nonStreamed struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Index   int `json:"index"`
		Message *struct {
			Role      string             `json:"role"`
			Content   *string            `json:"content"`
			ToolCalls []results.ToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *results.Usage `json:"usage"`
}

// completionObject judges nonstream.object on one non-streamed answer.
func (r *contractRun) completionObject(ctx context.Context) Outcome {
	ex, err := r.post(ctx)
	if err != nil {
		return failed("", "", "%v", err)
	}
	o := r.judgeCompletion(ex)
	o.Status = ex.status
	return o
}

// judgeCompletion judges a non-streamed answer's shape: HTTP 200, object
// "chat.completion", an id, and every choice with an assistant message
// and a finish_reason.
func (r *contractRun) judgeCompletion(ex *exchange) Outcome {
	bad := func(format string, args ...any) Outcome {
		return failed(ex.sentText(), ex.gotText(), format, args...)
	}
	if ex.status != http.StatusOK {
		return bad("HTTP %d, not 200", ex.status)
	}
	var c nonStreamed
	if err := json.Unmarshal(ex.body, &c); err != nil {
		return bad("the body is not a JSON object: %v", err)
	}
	if c.Object != "chat.completion" {
		return bad("object %q, not \"chat.completion\"", nm(c.Object))
	}
	if c.ID == "" {
		return bad("no id")
	}
	if len(c.Choices) == 0 {
		return bad("no choices")
	}
	for i, ch := range c.Choices {
		if ch.Message == nil {
			return bad("choices[%d] has no message", i)
		}
		if ch.Message.Role != "assistant" {
			return bad("choices[%d].message.role is %q", i, nm(ch.Message.Role))
		}
		if ch.FinishReason == nil || *ch.FinishReason == "" {
			return bad("choices[%d] has no finish_reason", i)
		}
	}
	return pass("chat.completion %q with %d choice(s), finish_reason %q", nm(c.ID), len(c.Choices), nm(*c.Choices[0].FinishReason))
}
