package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
)

// responsesEvents judges responses.events: the case's request streamed to
// /v1/responses follows the Responses API's event grammar (judged by
// judgeResponsesEvents). An endpoint not served (404, 405, 501) is a skip.
func (r *contractRun) responsesEvents(ctx context.Context) Outcome {
	return r.responsesContract(ctx, judgeResponsesEvents)
}

// responseEventView is the part of a Responses-API event the
// responses.events judge reads.
type responseEventView struct {
	Type   string          `json:"type"`
	Seq    json.RawMessage `json:"sequence_number"`
	ItemID *string         `json:"item_id"`
	Delta  json.RawMessage `json:"delta"`
	Text   *string         `json:"text"`
	Item   *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"item"`
}

// The stages of an output item, in the order its events move it.
const (
	itemAdded    = iota + 1 // output_item.added
	itemPartOpen            // content_part.added
	itemTextDone            // output_text.done (or refusal.done)
	itemPartDone            // content_part.done
	itemDone                // output_item.done
)

// responseItemState is one output item while its events come.
type responseItemState struct {
	typ    string
	stage  int
	deltas strings.Builder
	nDelta int
}

// eventsJudge walks one Responses stream's events.
type eventsJudge struct {
	sent     string
	n        int // data events seen
	created  bool
	progress bool
	terminal string
	lastSeq  int64
	items    map[string]*responseItemState
	ids      []string // the items' ids in the order they were added
	order    []string // their types, in the same order
	deltas   int
	chars    int
}

// judgeResponsesEvents is responses.events's verdict on one stream: the
// first event is response.created and response.in_progress comes before
// any output item; every event has a type and an integer sequence_number
// greater than the one before; each output item opens with
// output_item.added (carrying its id) and closes with output_item.done,
// and every event naming an item_id names an open item; a message's text
// goes content_part.added → output_text.delta* → output_text.done →
// content_part.done, and its deltas joined equal output_text.done's text;
// the stream ends with a terminal event (response.completed, .incomplete
// or .failed; the reader stops there), completed and incomplete after
// every item closed. An error that ends the stream early, an "error"
// event, a [DONE], a stream without a terminal event: a failure.
func judgeResponsesEvents(res *stream.Result, serr error, sent string) Outcome {
	if o, ok := unjudgeableResponses(res, serr, sent); ok {
		return o
	}
	j := &eventsJudge{sent: sent, lastSeq: -1, items: map[string]*responseItemState{}}
	for _, ev := range res.Events {
		data := strings.TrimSpace(ev.Data)
		if data == "" {
			continue // a keep-alive
		}
		j.n++
		if o, bad := j.event(ev.Type, data); bad {
			return o
		}
	}
	if j.terminal == "" {
		why := "no terminal event (response.completed, response.incomplete or response.failed)"
		if serr != nil {
			why += ": " + contract.Cut(serr.Error(), 160)
		}
		return failed(sent, fmt.Sprintf("%d events", j.n), "%s after %d events", why, j.n)
	}
	return pass("%d events in order: response.created, response.in_progress, %d output item(s) (%s), %d text delta(s) (%d chars, equal to output_text.done), sequence_number increasing, one %s last",
		j.n, len(j.order), strings.Join(j.order, ", "), j.deltas, j.chars, j.terminal)
}

// event judges the j.n-th event (type the SSE event field, data its
// data); bad reports a failure, o.
func (j *eventsJudge) event(sseType, data string) (o Outcome, bad bool) {
	got := fmt.Sprintf("event %d: %s", j.n, contract.Cut(data, EvidenceRunes))
	fail := func(format string, args ...any) (Outcome, bool) {
		return failed(j.sent, got, "event %d: %s", j.n, fmt.Sprintf(format, args...)), true
	}
	if data == "[DONE]" {
		return fail("data: [DONE]: a Responses stream ends with its terminal event, it has no [DONE]")
	}
	var e responseEventView
	if err := json.Unmarshal([]byte(data), &e); err != nil {
		return fail("not a JSON object: %v", contract.Cut(err.Error(), 120))
	}
	if e.Type == "" {
		return fail("no \"type\" (the SSE event field says %q)", nm(sseType))
	}
	seq, err := strconv.ParseInt(string(e.Seq), 10, 64)
	switch {
	case len(e.Seq) == 0 || string(e.Seq) == "null":
		return fail("%s has no sequence_number", nm(e.Type))
	case err != nil:
		return fail("%s has sequence_number %s, not an integer", nm(e.Type), contract.Cut(string(e.Seq), 40))
	case seq <= j.lastSeq:
		return fail("%s has sequence_number %d after %d: not increasing", nm(e.Type), seq, j.lastSeq)
	}
	j.lastSeq = seq
	if j.n == 1 && e.Type != "response.created" {
		return fail("the first event is %s, not response.created", nm(e.Type))
	}
	switch e.Type {
	case "response.created":
		if j.created {
			return fail("a second response.created")
		}
		j.created = true
		return Outcome{}, false
	case "response.queued":
		if j.progress {
			return fail("response.queued after response.in_progress")
		}
		return Outcome{}, false
	case "response.in_progress":
		if j.progress {
			return fail("a second response.in_progress")
		}
		j.progress = true
		return Outcome{}, false
	case "error":
		return fail("an error event, not a terminal event")
	}
	if !j.progress {
		return fail("%s before response.in_progress", nm(e.Type))
	}
	switch e.Type {
	case "response.completed", "response.incomplete", "response.failed":
		if e.Type != "response.failed" {
			for _, id := range j.ids {
				if it := j.items[id]; it.stage != itemDone {
					return fail("%s while item %q is open (no output_item.done)", e.Type, nm(id))
				}
			}
		}
		j.terminal = e.Type
		return Outcome{}, false
	case "response.output_item.added", "response.output_item.done":
		if e.Item == nil || e.Item.ID == "" {
			return fail("%s carries no item.id", e.Type)
		}
		id := e.Item.ID
		it := j.items[id]
		if e.Type == "response.output_item.added" {
			if it != nil {
				return fail("output_item.added for item %q a second time", nm(id))
			}
			j.items[id] = &responseItemState{typ: e.Item.Type, stage: itemAdded}
			j.ids, j.order = append(j.ids, id), append(j.order, e.Item.Type)
			return Outcome{}, false
		}
		switch {
		case it == nil:
			return fail("output_item.done for item %q, never added", nm(id))
		case it.stage == itemDone:
			return fail("output_item.done for item %q a second time", nm(id))
		case it.typ == "message" && it.stage != itemAdded && it.stage != itemPartDone:
			return fail("output_item.done for message %q while its content part is open (no content_part.done)", nm(id))
		}
		it.stage = itemDone
		return Outcome{}, false
	}
	if e.ItemID == nil {
		return Outcome{}, false // an event about no item
	}
	it := j.items[*e.ItemID]
	switch {
	case it == nil:
		return fail("%s names item_id %q, which no output_item.added opened", nm(e.Type), nm(*e.ItemID))
	case it.stage == itemDone:
		return fail("%s names item_id %q after its output_item.done", nm(e.Type), nm(*e.ItemID))
	}
	return j.partEvent(&e, it, fail)
}

// partEvent judges an event of a message's content part (others pass):
// fail makes the failure.
func (j *eventsJudge) partEvent(e *responseEventView, it *responseItemState, fail func(string, ...any) (Outcome, bool)) (Outcome, bool) {
	id := *e.ItemID
	switch e.Type {
	case "response.content_part.added":
		if it.stage != itemAdded && it.stage != itemPartDone {
			return fail("content_part.added for %q while a part is open", nm(id))
		}
		it.stage = itemPartOpen
		it.deltas.Reset()
		it.nDelta = 0
	case "response.output_text.delta", "response.refusal.delta":
		if it.stage != itemPartOpen {
			return fail("%s for %q outside a content part (no content_part.added before it)", e.Type, nm(id))
		}
		var s string
		if err := json.Unmarshal(e.Delta, &s); err != nil {
			return fail("%s delta is not a string", e.Type)
		}
		if e.Type == "response.output_text.delta" {
			it.deltas.WriteString(s)
			it.nDelta++
			j.deltas++
		}
	case "response.output_text.done", "response.refusal.done":
		if it.stage != itemPartOpen {
			return fail("%s for %q outside a content part", e.Type, nm(id))
		}
		it.stage = itemTextDone
		if e.Type != "response.output_text.done" {
			break
		}
		if e.Text == nil {
			return fail("output_text.done carries no text")
		}
		if it.nDelta > 0 && *e.Text != it.deltas.String() {
			return fail("output_text.done's text (%d chars) is not the %d deltas joined (%d chars): %q vs %q",
				len(*e.Text), it.nDelta, it.deltas.Len(), contract.Cut(*e.Text, 80), contract.Cut(it.deltas.String(), 80))
		}
		j.chars += len(*e.Text)
	case "response.content_part.done":
		if it.stage != itemTextDone {
			return fail("content_part.done for %q before its output_text.done", nm(id))
		}
		it.stage = itemPartDone
	}
	return Outcome{}, false
}
