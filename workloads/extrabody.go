package workloads

import (
	"encoding/json"
	"sort"
)

// reservedRequestKeys are the request-file keys benchserve sets itself;
// every other key of a request file is sent as extra body (reference:
// _request_extra_body).
var reservedRequestKeys = map[string]bool{
	"model": true, "messages": true, "max_tokens": true, "stream": true, "stream_options": true, "enable_thinking": true,
}

// reservedExtraHint says, for each key benchserve sets itself, where to
// set it instead. In extra_body these keys are errors: the reference
// would send them over its own (a "stream": false breaks the measurement,
// a "max_tokens" there is sent but not recorded).
var reservedExtraHint = map[string]string{
	"model":           "the model comes from --model or BENCHSERVE_MODEL",
	"messages":        "use the case's messages",
	"max_tokens":      "use max_tokens",
	"enable_thinking": "use enable_thinking",
	"stream":          "benchserve always streams",
	"stream_options":  "benchserve always asks for usage",
}

// checkExtraBody reports the keys of an extra_body that benchserve sets
// itself, in key order.
func (p *parser) checkExtraBody(where at, field string, extra map[string]any) {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if reservedRequestKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		p.add(where, field+"."+k, "set by benchserve, not by extra_body: %s", reservedExtraHint[k])
	}
}

// orderedExtraBody builds the case's extra body as JSON in the reference's
// key order: the request file's non-reserved keys as written, updated by
// the overlay object (existing keys keep their place, new keys follow in
// the overlay's order), as _request_extra_body and dict.update do.
func orderedExtraBody(requestRaw, overlayRaw json.RawMessage, useOverlay bool) json.RawMessage {
	var keys []string
	vals := map[string]json.RawMessage{}
	if rk, rv, ok := objectMembers(requestRaw); ok {
		for _, k := range rk {
			if !reservedRequestKeys[k] {
				keys = append(keys, k)
				vals[k] = rv[k]
			}
		}
	}
	if ok := useOverlay; ok {
		if ok, ov, isObj := objectMembers(overlayRaw); isObj {
			for _, k := range ok {
				if _, seen := vals[k]; !seen {
					keys = append(keys, k)
				}
				vals[k] = ov[k]
			}
		}
	}
	return orderedObject(keys, vals)
}

// caseExtraBody is a case's extra body: the request file's non-reserved
// keys (request, its text requestRaw) overlaid with the case's extra_body
// when the case obj has that key (even null), else with the defaults';
// nil, nil when empty. raw is the case's JSON text.
func (p *parser) caseExtraBody(where at, obj map[string]any, raw json.RawMessage, request map[string]any, requestRaw json.RawMessage, d *caseDefaults) (map[string]any, json.RawMessage) {
	extra := map[string]any{}
	for k, v := range request {
		if !reservedRequestKeys[k] {
			extra[k] = v
		}
	}
	overlay, overlayRaw := d.extra, d.extraRaw
	if v, present := obj["extra_body"]; present {
		overlay, _ = p.optObject(where, "extra_body", v)
		overlayRaw = rawMember(raw, "extra_body")
		p.checkExtraBody(where, "extra_body", overlay)
	}
	for k, v := range overlay {
		extra[k] = v
	}
	if len(extra) == 0 {
		return nil, nil
	}
	return extra, orderedExtraBody(requestRaw, overlayRaw, len(overlay) > 0)
}
