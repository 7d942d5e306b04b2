package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
)

// itemIDPrefixes are the id prefixes OpenAI gives the output items
// responses.ids judges, by item type; other types are not judged.
var itemIDPrefixes = map[string]string{"message": "msg_", "function_call": "fc_", "reasoning": "rs_"}

// responseIDPrefix is the prefix of OpenAI's response ids.
const responseIDPrefix = "resp_"

// responsesIDs judges responses.ids on the case's request streamed to
// /v1/responses (judgeResponsesIDs). An endpoint not served (404, 405,
// 501) is a skip.
func (r *contractRun) responsesIDs(ctx context.Context) Outcome {
	return r.responsesContract(ctx, judgeResponsesIDs)
}

// responseIDsView is the part of a Responses-API event responses.ids
// reads: the response object (response.created, .in_progress and the
// terminal event carry it) and an output item (output_item.added and
// .done).
type responseIDsView struct {
	Type     string `json:"type"`
	Response *struct {
		ID     *string      `json:"id"`
		Output []idItemView `json:"output"`
	} `json:"response"`
	Item *idItemView `json:"item"`
}

// idItemView is an output item's type and id.
type idItemView struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// judgeResponsesIDs is responses.ids's verdict on one stream: every event
// that carries the response object carries one id, starting "resp_";
// every message, function_call and reasoning item (in output_item events
// and the final response's output) has an id with its type's prefix
// (itemIDPrefixes). A stream that failed, or in which no event carries
// the response's id, fails.
func judgeResponsesIDs(res *stream.Result, serr error, sent string) Outcome {
	if o, ok := unjudgeableResponses(res, serr, sent); ok {
		return o
	}
	respID, carriers := "", 0
	items := map[string]int{} // judged items by type
	for i, ev := range res.Events {
		data := strings.TrimSpace(ev.Data)
		if data == "" || data == "[DONE]" {
			continue
		}
		got := fmt.Sprintf("event %d: %s", i+1, contract.Cut(data, EvidenceRunes))
		var v responseIDsView
		if json.Unmarshal([]byte(data), &v) != nil {
			continue // not JSON: responses.events judges it
		}
		var judged []idItemView
		if v.Item != nil {
			judged = append(judged, *v.Item)
		}
		if v.Response != nil {
			if v.Response.ID == nil || *v.Response.ID == "" {
				return failed(sent, got, "event %d (%s) carries the response without an id", i+1, nm(v.Type))
			}
			id := *v.Response.ID
			switch {
			case respID == "" && !strings.HasPrefix(id, responseIDPrefix):
				return failed(sent, got, "the response id %q does not start with %q", nm(id), responseIDPrefix)
			case respID != "" && id != respID:
				return failed(sent, got, "event %d (%s) carries the response id %q, the events before it %q", i+1, nm(v.Type), nm(id), nm(respID))
			}
			respID = id
			carriers++
			judged = append(judged, v.Response.Output...)
		}
		for _, it := range judged {
			prefix, ok := itemIDPrefixes[it.Type]
			if !ok {
				continue
			}
			if !strings.HasPrefix(it.ID, prefix) {
				return failed(sent, got, "event %d: a %s item's id %q does not start with %q", i+1, nm(it.Type), nm(it.ID), prefix)
			}
			items[it.Type]++
		}
	}
	if respID == "" {
		return failed(sent, fmt.Sprintf("%d events", len(res.Events)), "no event carries the response object with its id")
	}
	return pass("the response id %q in all %d events that carry the response; %s", nm(respID), carriers, itemsText(items))
}

// itemsText lists the judged items' types with how many times an id of
// theirs was seen.
func itemsText(items map[string]int) string {
	if len(items) == 0 {
		return "no message, function_call or reasoning item to judge"
	}
	types := make([]string, 0, len(items))
	for t := range items {
		types = append(types, t)
	}
	sort.Strings(types)
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%s ids %s* (%d seen)", t, itemIDPrefixes[t], items[t])
	}
	return strings.Join(parts, ", ")
}
