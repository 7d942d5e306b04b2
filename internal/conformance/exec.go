package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// DefaultTimeout bounds each request of a contract when Input.Timeout is
// zero: 120 s, room for a CPU-only model's answer of a few dozen tokens.
const DefaultTimeout = 120 * time.Second

// KeptEvents is how many SSE events of a streamed answer a check reads
// (stream.Request.KeepEvents): 65,536, far above any answer of the suite
// (a 256-token answer is about 260 events). Each kept event holds up to
// stream.MaxKeptEventBytes (1 MiB) and all of them stream.MaxKeptBytes
// (16 MiB), so a contract's memory is bounded on an endless stream. A
// stream past either cap is not judged on its events: the contracts that
// read them are a skip saying which cap it passed (streamed.incomplete).
const KeptEvents = 1 << 16

// maxBody bounds the non-streamed answer a check reads: 1 MiB.
const maxBody = 1 << 20

// EvidenceRunes is the length, in characters, to which a sent body or a
// received chunk is cut in a contract's evidence.
const EvidenceRunes = 400

// WrongKey is the key the wrong_api_key contract sends.
const WrongKey = "benchserve-conformance-wrong-key"

// CancelGrace is how long a cancel_stops contract waits, after closing the
// stream, for the server's running-requests gauge to fall: 5 s, a hundred
// times what a server that stops takes on an idle machine, so a busy one
// does not fail it; a server that stops sooner passes as soon as a scrape
// shows it.
const CancelGrace = 5 * time.Second

// Sender sends a contract's requests with the engine's one HTTP policy
// (timeouts, redirects, the Authorization header): the runner's stream
// client. This package builds the requests and judges the answers; it
// sends nothing itself.
type Sender interface {
	// Stream sends one streamed chat completion (stream.Client.ChatStream).
	Stream(ctx context.Context, req stream.Request) (*stream.Result, error)
	// Do sends one non-streamed request; key, when non-nil, replaces the
	// run's API key ("" sends none) (stream.Client.Do).
	Do(ctx context.Context, method, path string, body []byte, key *string, limit int64) (stream.Exchange, error)
}

// Target is the server a contract is checked on.
type Target struct {
	// Sender sends every request of the contract; required.
	Sender Sender
	// Model is the model sent in every request.
	Model string
	// ModelFound reports that Model was not given but found from the
	// server (its /v1/models or status): models.list then also asks that
	// the model be served.
	ModelFound bool
	// Health, when non-nil, is shared by the contracts of one run: once
	// the server went away, the rest are a skip saying so (GoneEvidence)
	// instead of one failure each. Nil judges every contract alone.
	Health *Health
}

// Input is one contract to check: its spec and the case's request.
type Input struct {
	// Protocol is the case's protocol object; required.
	Protocol *workloads.Protocol
	// Messages, MaxTokens (0 means 256), EnableThinking and ExtraBody
	// build the body as stream.BuildBody does; Protocol.Body is merged over it.
	Messages       []results.Message
	MaxTokens      int
	EnableThinking *bool
	ExtraBody      map[string]any
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration
}

// contractRun is one contract's execution on a target: the case's
// input, its protocol spec and check kind, and when it started.
type contractRun struct {
	t     Target
	in    Input
	s     *workloads.Protocol
	kind  contract.Kind
	start time.Time
	// answered is whether any request got an HTTP answer; noAnswer is
	// the error of the last one that got none (Health).
	answered bool
	noAnswer error
}

// heard notes one request's fate for Health: status 0 with err is no
// answer.
func (r *contractRun) heard(status int, err error) {
	if status != 0 {
		r.answered = true
	} else if err != nil {
		r.noAnswer = err
	}
}

// Run checks one contract on the target: it sends the request(s) the
// spec describes and judges the answer by the spec's check kind. It never
// returns an error: a request that fails is evidence (a transport error
// on a contract that needs an answer fails it). Safe for concurrent use.
func Run(ctx context.Context, t Target, in Input) Outcome {
	r := &contractRun{t: t, in: in, s: in.Protocol, kind: contract.Kind(in.Protocol.Check), start: time.Now()}
	if out, gone := r.notChecked(ctx); gone {
		out.Elapsed = time.Since(r.start)
		return out
	}
	out := r.run(ctx)
	out.Elapsed = time.Since(r.start)
	if t.Health != nil && ctx.Err() == nil {
		t.Health.record(r.kind, r.answered, r.noAnswer)
	}
	return out
}

// timeout bounds each request of the contract: Input.Timeout, else
// DefaultTimeout.
func (r *contractRun) timeout() time.Duration {
	if r.in.Timeout > 0 {
		return r.in.Timeout
	}
	return DefaultTimeout
}

// body builds the request body: the case's, streamed or not, with
// Protocol.Body merged over it (null removes a key).
func (r *contractRun) body(streamed bool) ([]byte, error) {
	if r.s.RawBody != nil {
		return []byte(*r.s.RawBody), nil
	}
	b, err := stream.BuildBody(stream.Request{Model: r.t.Model, Messages: r.in.Messages, MaxTokens: r.in.MaxTokens,
		EnableThinking: r.in.EnableThinking, ExtraBody: r.in.ExtraBody})
	if err != nil {
		return nil, fmt.Errorf("conformance: build body: %w", err)
	}
	m := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("conformance: build body: %w", err)
	}
	if !streamed {
		m["stream"] = false
		delete(m, "stream_options")
	}
	for k, v := range r.s.Body {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// do sends one non-streamed request; key nil is the run's own API key,
// "" none.
func (r *contractRun) do(ctx context.Context, method, path string, body []byte, key *string) *exchange {
	ex := &exchange{method: method, path: path, sent: body}
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	got, err := r.t.Sender.Do(ctx, method, path, body, key, maxBody)
	r.heard(got.Status, err)
	ex.status, ex.contentType, ex.body = got.Status, got.ContentType, got.Body
	if err != nil {
		ex.err = fmt.Errorf("conformance: %w", err)
	}
	return ex
}

// post sends the case's body non-streamed with the run's key.
func (r *contractRun) post(ctx context.Context) (*exchange, error) {
	body, err := r.body(false)
	if err != nil {
		return nil, err
	}
	return r.do(ctx, http.MethodPost, contract.EndpointChat, body, nil), nil
}
