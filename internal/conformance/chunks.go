package conformance

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// chunkView is one data event of a stream decoded as a chunk.
type chunkView struct {
	event int // 1-based position among the stream's events
	raw   string
	c     wireChunk
	err   error
}

// text is the event as evidence, cut to EvidenceRunes.
func (v chunkView) text() string {
	return fmt.Sprintf("event %d: data: %s", v.event, contract.Cut(v.raw, EvidenceRunes))
}

// wireChunk is a chat.completion.chunk as sent, with absent and null
// kept apart where a rule needs it.
type wireChunk struct {
	ID      *string        `json:"id"`
	Object  string         `json:"object"`
	Model   *string        `json:"model"`
	Choices *[]wireChoice  `json:"choices"`
	Usage   *results.Usage `json:"usage"`
}

// wireChoice is one choice of a wireChunk.
type wireChoice struct {
	Index        *int          `json:"index"`
	Delta        *openai.Delta `json:"delta"`
	FinishReason *string       `json:"finish_reason"`
}

// parseChunks decodes every data event but keep-alives and [DONE].
func parseChunks(events []stream.Event) []chunkView {
	var out []chunkView
	for i, ev := range events {
		data := strings.TrimSpace(ev.Data)
		if data == "" || data == "[DONE]" || ev.Error != "" || ev.Type == "error" {
			continue
		}
		v := chunkView{event: i + 1, raw: data}
		v.err = json.Unmarshal([]byte(data), &v.c)
		out = append(out, v)
	}
	return out
}

// carries reports whether a delta carries any token.
func carries(d *openai.Delta) bool {
	if d == nil {
		return false
	}
	return d.Content != nil && *d.Content != "" || d.ReasoningContent != nil && *d.ReasoningContent != "" ||
		d.Reasoning != nil && *d.Reasoning != "" || d.Refusal != nil && *d.Refusal != "" || len(d.ToolCalls) > 0
}

// index is a choice's index, 0 when absent (the reference's default).
func index(c wireChoice) int {
	if c.Index == nil {
		return 0
	}
	return *c.Index
}
