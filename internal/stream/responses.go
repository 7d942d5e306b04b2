package stream

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/results"
)

// responseEvent is the part of one Responses-API streaming event the
// client reads (docs/streams.md lists the grammar). Every event is a JSON
// object with a "type"; the other fields depend on it.
type responseEvent struct {
	Type        string          `json:"type"`
	ItemID      string          `json:"item_id"`
	OutputIndex int             `json:"output_index"`
	Delta       json.RawMessage `json:"delta"`
	// Text is output_text.done's and reasoning_text.done's whole text;
	// Arguments function_call_arguments.done's whole arguments.
	Text      *string         `json:"text"`
	Arguments *string         `json:"arguments"`
	Item      *responseItem   `json:"item"`
	Response  *responseObject `json:"response"`
}

// responseItem is an output item (output_item.added / .done).
type responseItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// responseObject is the response a lifecycle event carries.
type responseObject struct {
	ID                string          `json:"id"`
	Status            string          `json:"status"`
	Usage             *responseUsage  `json:"usage"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// responseUsage is the Responses API's usage (input/output tokens).
type responseUsage struct {
	InputTokens         int `json:"input_tokens"`
	OutputTokens        int `json:"output_tokens"`
	TotalTokens         int `json:"total_tokens"`
	OutputTokensDetails *struct {
		ReasoningTokens *int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// results converts u to the chat usage shape Result.Usage holds:
// input_tokens is PromptTokens, output_tokens CompletionTokens.
func (u *responseUsage) results() *results.Usage {
	out := &results.Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
	if d := u.OutputTokensDetails; d != nil && d.ReasoningTokens != nil {
		out.CompletionTokensDetails = &results.CompletionTokensDetails{ReasoningTokens: d.ReasoningTokens}
	}
	return out
}

// responseState follows the output items of one Responses-API stream.
type responseState struct {
	// calls maps a function_call item's id to what the reader knows of
	// it; streamed says which items' text or arguments came as deltas.
	calls    map[string]*responseCall
	streamed map[string]bool
	sawCall  bool
}

// responseCall is one function_call output item.
type responseCall struct {
	index          int
	callID, name   string
	namedSent      bool
	argumentsBytes int
}

// call returns the function call of item id at output index idx,
// creating it on first use.
func (rs *responseState) call(id string, idx int) *responseCall {
	if rs.calls == nil {
		rs.calls = map[string]*responseCall{}
	}
	c := rs.calls[id]
	if c == nil {
		c = &responseCall{index: idx}
		rs.calls[id] = c
	}
	rs.sawCall = true
	return c
}

// handleResponse processes one Responses-API event (data is its trimmed
// data). Deltas of output text, reasoning text (reasoning_text and
// reasoning_summary_text), refusals and function-call arguments are
// token-bearing, timed by the same rules as chat chunks (addChunk). The
// stream ends at its terminal event: response.completed and
// response.incomplete end it well (finish "stop" or "tool_calls", and
// "length" for max_output_tokens), response.failed and an "error" event
// fail it with a *ServerError. There is no [DONE]; one before the
// terminal event ends the stream as truncated.
func (st *state) handleResponse(ev *sseEvent, data []byte) (done bool, err error) {
	if isDone(data) {
		return false, fmt.Errorf("stream: responses: [DONE] after %d events before a terminal event: %w", st.events, ErrTruncated)
	}
	var e responseEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return false, fmt.Errorf("stream: responses: event %d: %w: %w: %.200q", st.events, ErrMalformed, err, data)
	}
	if e.Type == "" {
		e.Type = string(ev.typ)
	}
	rs := &st.resp
	var c decodedChoice
	switch e.Type {
	case "error":
		return false, serverError(data, nil)
	case "response.created", "response.in_progress", "response.queued":
		if e.Response != nil {
			st.setID([]byte(e.Response.ID))
		}
		return false, nil
	case "response.completed", "response.incomplete", "response.failed":
		return true, st.endResponse(&e, data)
	case "response.output_text.delta", "response.reasoning_text.delta",
		"response.reasoning_summary_text.delta", "response.refusal.delta",
		"response.function_call_arguments.delta":
		var s string
		if err := json.Unmarshal(e.Delta, &s); err != nil {
			return false, fmt.Errorf("stream: responses: event %d (%s): %w: delta is not a string: %.200q", st.events, e.Type, ErrMalformed, data)
		}
		if s == "" {
			return false, nil
		}
		rs.markStreamed(e.ItemID)
		switch e.Type {
		case "response.output_text.delta":
			c.content = []byte(s)
		case "response.refusal.delta":
			c.refusal = []byte(s)
		case "response.function_call_arguments.delta":
			call := rs.call(e.ItemID, e.OutputIndex)
			call.argumentsBytes += len(s)
			c.toolCalls = call.delta(s)
		default:
			c.reasoning = []byte(s)
		}
	case "response.output_text.done", "response.reasoning_text.done":
		// A server that sends the text only whole: it is one token chunk.
		if e.Text == nil || *e.Text == "" || rs.streamed[e.ItemID] {
			return false, nil
		}
		rs.markStreamed(e.ItemID)
		if e.Type == "response.output_text.done" {
			c.content = []byte(*e.Text)
		} else {
			c.reasoning = []byte(*e.Text)
		}
	case "response.function_call_arguments.done":
		call := rs.call(e.ItemID, e.OutputIndex)
		if e.Arguments == nil || call.argumentsBytes > 0 {
			return false, nil
		}
		call.argumentsBytes = len(*e.Arguments)
		c.toolCalls = call.delta(*e.Arguments)
	case "response.output_item.added", "response.output_item.done":
		it := e.Item
		if it == nil || it.Type != "function_call" {
			return false, nil
		}
		call := rs.call(it.ID, e.OutputIndex)
		call.callID = cmp.Or(call.callID, it.CallID, it.ID)
		call.name = cmp.Or(call.name, it.Name)
		if e.Type == "response.output_item.done" && call.argumentsBytes == 0 && it.Arguments != "" {
			call.argumentsBytes = len(it.Arguments)
			c.toolCalls = call.delta(it.Arguments)
		} else if !call.namedSent && call.name != "" {
			c.toolCalls = call.delta("")
		}
	default: // content_part.added/done and events benchserve does not read
		return false, nil
	}
	return false, st.addChunk(&c, nil, nil)
}

// markStreamed notes that item id's text or arguments arrived.
func (rs *responseState) markStreamed(id string) {
	if rs.streamed == nil {
		rs.streamed = map[string]bool{}
	}
	rs.streamed[id] = true
}

// delta returns the tool-call fragment carrying args (and, the first
// time, the call's id and name) in chat's shape, for ToolCallAccumulator.
func (c *responseCall) delta(args string) []openai.ToolCallDelta {
	idx := c.index
	d := openai.ToolCallDelta{Index: &idx, Function: &openai.FunctionCallDelta{Arguments: args}}
	if !c.namedSent && c.name != "" {
		d.ID, d.Type, d.Function.Name = c.callID, "function", c.name
		c.namedSent = true
	}
	return []openai.ToolCallDelta{d}
}

// endResponse reads the terminal event: usage, the finish reason, and
// the error of response.failed.
func (st *state) endResponse(e *responseEvent, data []byte) error {
	r := e.Response
	if r == nil {
		return fmt.Errorf("stream: responses: event %d: %w: %s without a response object", st.events, ErrMalformed, e.Type)
	}
	st.setID([]byte(r.ID))
	if r.Usage != nil {
		st.res.Usage = r.Usage.results()
	}
	finish := "stop"
	switch {
	case e.Type == "response.failed":
		if len(r.Error) > 0 && string(r.Error) != "null" {
			return serverError(r.Error, nil)
		}
		return serverError(data, nil)
	case e.Type == "response.incomplete":
		finish = "length"
		if d := r.IncompleteDetails; d != nil && d.Reason != "" && d.Reason != "max_output_tokens" {
			finish = d.Reason
		}
	case st.resp.sawCall:
		finish = "tool_calls"
	}
	st.acc(0).finish = finish
	return nil
}
