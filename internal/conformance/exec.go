package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// DefaultTimeout bounds each request of a contract when Input.Timeout is
// zero: 120 s, room for a CPU-only model's answer of a few dozen tokens.
const DefaultTimeout = 120 * time.Second

// KeptEvents is how many SSE events of a streamed answer a check reads
// (stream.Request.KeepEvents); the suite's answers are far shorter.
const KeptEvents = 2048

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

// Outcome is a contract's result.
type Outcome struct {
	// Verdict is pass, fail or skip.
	Verdict contract.Verdict
	// Evidence says what was found: why the contract passed, failed or
	// was skipped, naming the offending field, chunk or status.
	Evidence string
	// Sent is the request (method, path, body cut to EvidenceRunes).
	Sent string
	// Received is what came back that decided the verdict: the status and
	// body, or the offending event, cut to EvidenceRunes.
	Received string
	// Stream is the streamed answer, nil when the contract streamed none.
	Stream *stream.Result
	// StreamErr is the stream's error, nil when it ended well.
	StreamErr error
	// Status is the HTTP status of the deciding answer, 0 when none came.
	Status int
	// Elapsed is the time the contract's requests took.
	Elapsed time.Duration
}

// Message is the outcome for a person: the contract's name and level, the
// evidence and, for a failure, the rule it breaks with its reference,
// what was sent and what came back.
func (o Outcome) Message(name string, s *workloads.Protocol) string {
	r := contract.Rules[contract.Kind(s.Check)]
	switch o.Verdict {
	case contract.Pass:
		return fmt.Sprintf("%s (%s): holds: %s", name, s.Level, o.Evidence)
	case contract.Skip:
		return fmt.Sprintf("%s (%s): not applicable: %s", name, s.Level, o.Evidence)
	}
	msg := fmt.Sprintf("%s (%s): %s; breaks: %s (%s)", name, s.Level, o.Evidence, r.Text, r.Ref)
	if o.Sent != "" {
		msg += "; sent: " + o.Sent
	}
	if o.Received != "" {
		msg += "; got: " + o.Received
	}
	return msg
}

// exchange is one non-streamed HTTP request and its answer.
type exchange struct {
	method, path string
	sent         []byte
	status       int
	contentType  string
	body         []byte
	err          error
}

func (e *exchange) sentText() string {
	if e.method == http.MethodGet {
		return "GET " + e.path
	}
	return e.method + " " + e.path + " " + contract.Cut(string(e.sent), EvidenceRunes)
}

func (e *exchange) gotText() string {
	if e.err != nil && e.status == 0 {
		return "no answer: " + e.err.Error()
	}
	return fmt.Sprintf("HTTP %d (%s): %s", e.status, orNone(e.contentType), contract.Cut(strings.TrimSpace(string(e.body)), EvidenceRunes))
}

func orNone(s string) string {
	if s == "" {
		return "no Content-Type"
	}
	return s
}

// runner holds one contract's execution.
type runner struct {
	t     Target
	in    Input
	s     *workloads.Protocol
	kind  contract.Kind
	start time.Time
}

// Run checks one contract on the target: it sends the request(s) the
// spec describes and judges the answer by the spec's check kind. It never
// returns an error: a request that fails is evidence (a transport error
// on a contract that needs an answer fails it). Safe for concurrent use.
func Run(ctx context.Context, t Target, in Input) Outcome {
	r := &runner{t: t, in: in, s: in.Protocol, kind: contract.Kind(in.Protocol.Check), start: time.Now()}
	out := r.run(ctx)
	out.Elapsed = time.Since(r.start)
	return out
}

func (r *runner) timeout() time.Duration {
	if r.in.Timeout > 0 {
		return r.in.Timeout
	}
	return DefaultTimeout
}

// body builds the request body: the case's, streamed or not, with
// Protocol.Body merged over it (null removes a key).
func (r *runner) body(streamed bool) ([]byte, error) {
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
func (r *runner) do(ctx context.Context, method, path string, body []byte, key *string) *exchange {
	ex := &exchange{method: method, path: path, sent: body}
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	got, err := r.t.Sender.Do(ctx, method, path, body, key, maxBody)
	ex.status, ex.contentType, ex.body = got.Status, got.ContentType, got.Body
	if err != nil {
		ex.err = fmt.Errorf("conformance: %w", err)
	}
	return ex
}

// post sends the case's body non-streamed with the run's key.
func (r *runner) post(ctx context.Context) (*exchange, error) {
	body, err := r.body(false)
	if err != nil {
		return nil, err
	}
	return r.do(ctx, http.MethodPost, contract.EndpointChat, body, nil), nil
}

// streamed is one streamed answer with its raw events.
type streamed struct {
	sent   []byte
	res    *stream.Result
	err    error
	chunks []chunkView
}

func (st *streamed) sentText() string {
	return "POST " + contract.EndpointChat + " " + contract.Cut(string(st.sent), EvidenceRunes)
}

// httpStatus is the stream's HTTP error status, 0 when it was not one.
func (st *streamed) httpStatus() int {
	var he *stream.HTTPError
	if errors.As(st.err, &he) {
		return he.StatusCode
	}
	return 0
}

func (r *runner) stream(ctx context.Context, stopAfter int) (*streamed, error) {
	body, err := r.body(true)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	res, serr := r.t.Sender.Stream(ctx, stream.Request{Body: body, KeepEvents: KeptEvents, StopAfterChunks: stopAfter})
	st := &streamed{sent: body, res: res, err: serr}
	st.chunks = parseChunks(res.Events)
	return st, nil
}

// chunkView is one data event of a stream decoded as a chunk.
type chunkView struct {
	event int // 1-based position among the stream's events
	raw   string
	c     wireChunk
	err   error
}

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
