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
	// PromptFilterResults is Azure OpenAI's content-filter verdict on the
	// prompt (azurePreamble).
	PromptFilterResults json.RawMessage `json:"prompt_filter_results"`
}

// azurePreamble reports whether a chunk is Azure OpenAI's first chunk:
// prompt_filter_results, no choice, and an empty id and object. It is
// Azure's report on the prompt, not a part of the answer, so the stream
// contracts leave it out (docs/streams.md).
func (c *wireChunk) azurePreamble() bool {
	return len(c.PromptFilterResults) > 0 && (c.Choices == nil || len(*c.Choices) == 0) &&
		(c.ID == nil || *c.ID == "") && c.Object == ""
}

// wireChoice is one choice of a wireChunk.
type wireChoice struct {
	Index        *int          `json:"index"`
	Delta        *openai.Delta `json:"delta"`
	FinishReason *string       `json:"finish_reason"`
}

// parseChunks decodes every data event but keep-alives, [DONE] and
// Azure's prompt_filter_results preamble.
func parseChunks(events []stream.Event) []chunkView {
	var out []chunkView
	for i, ev := range events {
		data := strings.TrimSpace(ev.Data)
		if data == "" || data == "[DONE]" || ev.Error != "" || ev.Type == "error" {
			continue
		}
		v := chunkView{event: i + 1, raw: data}
		v.err = json.Unmarshal([]byte(data), &v.c)
		if v.err == nil && v.c.azurePreamble() {
			continue
		}
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
