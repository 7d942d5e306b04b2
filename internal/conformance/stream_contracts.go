package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
)

// framing judges stream.framing: every event is a chat.completion.chunk
// in JSON (Azure's prompt_filter_results chunk aside), none an error, and
// the stream ends with data: [DONE].
func (r *contractRun) framing(st *streamed) Outcome {
	res := st.res
	if s := st.httpStatus(); s != 0 {
		return failed(st.sentText(), st.errText(), "the server answered HTTP %d, not a stream", s)
	}
	preamble := 0 // the event of Azure's prompt_filter_results chunk
	for i, ev := range res.Events {
		n := i + 1
		if ev.Error != "" || ev.Type == "error" {
			return failed(st.sentText(), st.eventText(n), "event %d is an error event", n)
		}
		if ev.Cut {
			why, _ := st.incomplete()
			return skip("%s", why)
		}
		data := strings.TrimSpace(ev.Data)
		if data == "" || data == "[DONE]" {
			continue
		}
		var c wireChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return failed(st.sentText(), st.eventText(n), "event %d is not JSON: %v", n, err)
		}
		if c.azurePreamble() {
			preamble = n
			continue
		}
		if c.Object != "chat.completion.chunk" {
			return failed(st.sentText(), st.eventText(n), "event %d has object %q, not \"chat.completion.chunk\"", n, nm(c.Object))
		}
	}
	if !res.Done {
		got := "no events"
		if len(res.Events) > 0 {
			got = st.eventText(len(res.Events))
		}
		if st.err != nil && !errors.Is(st.err, stream.ErrTruncated) {
			return failed(st.sentText(), "last "+got, "the stream failed after %d events without data: [DONE]: %s", res.EventsSeen, contract.Cut(st.err.Error(), 160))
		}
		return failed(st.sentText(), "last "+got, "the stream ended after %d events without data: [DONE]", res.EventsSeen)
	}
	if st.err != nil {
		return failed(st.sentText(), st.errText(), "the stream failed: %v", st.err)
	}
	if why, cut := st.incomplete(); cut {
		return skip("%s", why)
	}
	if preamble > 0 {
		return pass("%d events, %d chunks, then data: [DONE] (event %d is Azure's prompt_filter_results chunk, not judged)", res.EventsSeen, len(st.chunks), preamble)
	}
	return pass("%d events, %d chunks, then data: [DONE]", res.EventsSeen, len(st.chunks))
}

// rawFraming judges what the stream client does not keep: the stream's
// Content-Type is text/event-stream, and nothing but blank lines and SSE
// comments follows data: [DONE]. It sends the streamed request once more
// and reads its raw body (up to maxBody; a longer one is not judged
// after [DONE]). passed is stream.framing's verdict on the first stream.
func (r *contractRun) rawFraming(ctx context.Context, passed Outcome) Outcome {
	body, err := r.body(true)
	if err != nil {
		return failed("", "", "%v", err)
	}
	ex := r.do(ctx, http.MethodPost, contract.EndpointChat, body, nil)
	if ex.status != http.StatusOK {
		// The first stream came; a second failing is no framing rule's.
		return passed
	}
	if mt, _, _ := strings.Cut(ex.contentType, ";"); !strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
		return failed(ex.sentText(), fmt.Sprintf("HTTP %d Content-Type %s", ex.status, orNone(ex.contentType)), "the stream's Content-Type is %s, not text/event-stream", orNone(ex.contentType))
	}
	if len(ex.body) >= maxBody {
		return passed
	}
	if after, ok := afterDone(ex.body); ok && after != "" {
		return failed(ex.sentText(), "after data: [DONE]: "+contract.Cut(after, EvidenceRunes), "the stream goes on after data: [DONE]")
	}
	return passed
}

// afterDone is what the raw SSE body holds after its data: [DONE] event,
// blank lines and comment lines (": …") left out; ok is false when the
// body has no data: [DONE].
func afterDone(body []byte) (string, bool) {
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n", "\n"), "\r", "\n"), "\n")
	for i, l := range lines {
		field, value, _ := strings.Cut(l, ":")
		if field != "data" || strings.TrimSpace(value) != "[DONE]" {
			continue
		}
		var rest []string
		for _, m := range lines[i+1:] {
			if m = strings.TrimSpace(m); m != "" && !strings.HasPrefix(m, ":") {
				rest = append(rest, m)
			}
		}
		return strings.Join(rest, "\n"), true
	}
	return "", false
}

// sameID judges stream.same_id: every chunk has the first chunk's id
// and model, neither empty.
func sameID(st *streamed) Outcome {
	var id, model *string
	for _, v := range st.chunks {
		if v.err != nil {
			continue
		}
		if v.c.ID == nil || *v.c.ID == "" {
			return failed("", v.text(), "event %d has no id", v.event)
		}
		if id == nil {
			id, model = v.c.ID, v.c.Model
			if model == nil || *model == "" {
				return failed("", v.text(), "event %d has no model", v.event)
			}
			continue
		}
		if *v.c.ID != *id {
			return failed("", v.text(), "event %d has id %q, the first chunk %q", v.event, nm(*v.c.ID), nm(*id))
		}
		if v.c.Model == nil || *v.c.Model != *model {
			got := "none"
			if v.c.Model != nil {
				got = fmt.Sprintf("%q", nm(*v.c.Model))
			}
			return failed("", v.text(), "event %d has model %s, the first chunk %q", v.event, got, nm(*model))
		}
	}
	if id == nil {
		return failed("", st.errText(), "no chunk came")
	}
	return pass("%d chunks with id %q and model %q", len(st.chunks), nm(*id), nm(*model))
}

// firstRole judges stream.first_role: the first delta of every choice
// has role "assistant".
func firstRole(st *streamed) Outcome {
	seen := map[int]bool{}
	for _, v := range st.chunks {
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			i := index(ch)
			if seen[i] || ch.Delta == nil {
				continue
			}
			seen[i] = true
			if ch.Delta.Role != "assistant" {
				return failed("", v.text(), "the first delta of choice %d has role %q", i, nm(ch.Delta.Role))
			}
		}
	}
	if len(seen) == 0 {
		return failed("", st.errText(), "no choice came")
	}
	return pass(`the first delta of %d choice(s) has role "assistant"`, len(seen))
}

// finishOnce judges stream.finish_once: every choice ends with exactly
// one non-null finish_reason and carries no token after it.
func finishOnce(st *streamed) Outcome {
	count := map[int]int{}
	var order []int
	for _, v := range st.chunks {
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			i := index(ch)
			if _, ok := count[i]; !ok {
				count[i] = 0
				order = append(order, i)
			}
			if count[i] > 0 && carries(ch.Delta) {
				return failed("", v.text(), "choice %d has content after its finish_reason", i)
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				count[i]++
				if count[i] > 1 {
					return failed("", v.text(), "choice %d has a second non-null finish_reason (%q)", i, nm(*ch.FinishReason))
				}
			}
		}
	}
	if len(order) == 0 {
		return failed("", st.errText(), "no choice came")
	}
	for _, i := range order {
		if count[i] == 0 {
			return failed("", st.errText(), "choice %d ended without a finish_reason", i)
		}
	}
	return pass("%d choice(s), one finish_reason each", len(order))
}

// usageChunk judges stream.usage_chunk: with include_usage, the last
// chunk has choices [] and usage.
func usageChunk(st *streamed) Outcome {
	var last *chunkView
	for i := range st.chunks {
		if st.chunks[i].err == nil {
			last = &st.chunks[i]
		}
	}
	if last == nil {
		return failed("", st.errText(), "no chunk came")
	}
	if last.c.Choices == nil || len(*last.c.Choices) != 0 || last.c.Usage == nil {
		what := "no usage"
		switch {
		case last.c.Usage != nil && last.c.Choices != nil && len(*last.c.Choices) > 0:
			what = fmt.Sprintf("usage on a chunk with %d choice(s)", len(*last.c.Choices))
		case last.c.Choices == nil:
			what = "no choices key"
		}
		return failed("", last.text(), "the last chunk is not the usage chunk: %s", what)
	}
	return pass("the last chunk (event %d) has choices [] and usage", last.event)
}

// usageUnasked judges stream.usage_unasked on a stream sent without
// stream_options: OpenAI's chunk object says usage "will only be present
// when you set stream_options: {"include_usage": true}", so any chunk
// with a non-null usage fails, the choices: [] usage chunk (which breaks a
// client reading choices[0], why it is opt-in) and usage riding on a
// chunk with choices alike. "usage": null passes.
func usageUnasked(st *streamed) Outcome {
	n := 0
	for _, v := range st.chunks {
		if v.err != nil {
			continue
		}
		n++
		if v.c.Usage == nil {
			continue
		}
		if v.c.Choices != nil && len(*v.c.Choices) == 0 {
			return failed("", v.text(), "a usage chunk (choices [] and usage) came unasked, without stream_options")
		}
		return failed("", v.text(), "a chunk carries usage unasked, without stream_options")
	}
	if n == 0 {
		return failed("", st.errText(), "no chunk came")
	}
	return pass("none of the %d chunks carries usage without stream_options", n)
}
