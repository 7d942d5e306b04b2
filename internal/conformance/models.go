package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/benchserve/benchserve/internal/contract"
)

// models judges models.list: GET /v1/models is a list of model objects
// with ids, the model in use among them; when that model was found from
// the server rather than given (Target.ModelFound), a request for it must
// also be answered, or the contract would pass on the list it was taken
// from.
func (r *contractRun) models(ctx context.Context) Outcome {
	ex := r.do(ctx, http.MethodGet, contract.EndpointModels, nil, nil)
	bad := func(format string, args ...any) Outcome {
		o := failed(ex.sentText(), ex.gotText(), format, args...)
		o.Status = ex.status
		return o
	}
	if ex.status != http.StatusOK {
		return bad("HTTP %d, not 200", ex.status)
	}
	var l struct {
		Object string `json:"object"`
		Data   *[]struct {
			ID     *string `json:"id"`
			Object string  `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(ex.body, &l); err != nil {
		return bad("the body is not a JSON object: %v", err)
	}
	if l.Object != "list" {
		return bad("object %q, not \"list\"", nm(l.Object))
	}
	if l.Data == nil {
		return bad("no data list")
	}
	found := ""
	for i, m := range *l.Data {
		if m.ID == nil || *m.ID == "" {
			return bad("data[%d] has no id", i)
		}
		if m.Object != "model" {
			return bad("data[%d] has object %q, not \"model\"", i, nm(m.Object))
		}
		// Ollama lists "name:latest" for the model a client calls "name".
		if *m.ID == r.t.Model || *m.ID == r.t.Model+":latest" {
			found = *m.ID
		}
	}
	if found == "" {
		return bad("the model in use, %q, is not listed", nm(r.t.Model))
	}
	if r.t.ModelFound {
		// The model came from the server, maybe from this very list:
		// that it is listed proves nothing unless it is served.
		chat, err := r.post(ctx)
		if err != nil {
			return failed("", "", "%v", err)
		}
		if chat.status < 200 || chat.status > 299 {
			o := failed(chat.sentText(), chat.gotText(), "the model in use, %q, was found from the server (no model was given) and is listed, but a request for it is answered HTTP %d", nm(r.t.Model), chat.status)
			o.Status = chat.status
			return o
		}
		return Outcome{Verdict: contract.Pass, Evidence: fmt.Sprintf("%d model(s), %q among them and served (it was found from the server, no model was given)", len(*l.Data), nm(found)), Status: ex.status}
	}
	return Outcome{Verdict: contract.Pass, Evidence: fmt.Sprintf("%d model(s), %q among them", len(*l.Data), nm(found)), Status: ex.status}
}
