package stream

import (
	"encoding/json"
	"fmt"

	"github.com/benchserve/benchserve/results"
)

// completionChunk is one streamed text_completion chunk of
// /v1/completions: choices carry "text" instead of a delta.
type completionChunk struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Choices []completionChoice `json:"choices"`
	Usage   *results.Usage     `json:"usage"`
	Error   json.RawMessage    `json:"error"`
}

// completionChoice is one entry of a completions chunk's choices.
type completionChoice struct {
	Index        int     `json:"index"`
	Text         string  `json:"text"`
	FinishReason *string `json:"finish_reason"`
}

// handleCompletion processes one /v1/completions chunk (data trimmed, not
// [DONE]): each choice's text is its content, timed by the chat rules
// (addChunk); usage, id and errors are read as for chat.
func (st *state) handleCompletion(data []byte) error {
	var ck completionChunk
	if err := json.Unmarshal(data, &ck); err != nil {
		return fmt.Errorf("stream: completions: event %d: %w: %w: %.200q", st.events, ErrMalformed, err, data)
	}
	st.setID([]byte(ck.ID))
	if len(ck.Error) > 0 && string(ck.Error) != "null" {
		return serverError(ck.Error, nil)
	}
	if ck.Object == "error" {
		return serverError(data, nil)
	}
	if ck.Usage != nil {
		st.res.Usage = ck.Usage
	}
	if len(ck.Choices) == 0 {
		return nil
	}
	choices := make([]decodedChoice, len(ck.Choices))
	for i, c := range ck.Choices {
		choices[i] = decodedChoice{index: c.Index, content: []byte(c.Text)}
		if c.FinishReason != nil {
			choices[i].finish = []byte(*c.FinishReason)
		}
	}
	return st.addChunk(&choices[0], choices[1:], ck.Usage)
}
