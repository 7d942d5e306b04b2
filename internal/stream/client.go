package stream

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/r3labs/sse/v2"

	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/results"
)

// Additional sentinel errors (see also errors.go).
var (
	// ErrConnectionLost: the connection failed (reset, closed mid-body)
	// after the response headers arrived. The underlying network error is
	// wrapped too.
	ErrConnectionLost = errors.New("connection lost mid-stream")
	// ErrEventTooLarge: one SSE event exceeded Client.MaxEventBytes. The
	// bufio.ErrTooLong from the splitter is wrapped too.
	ErrEventTooLarge = errors.New("event too large")
	// ErrMalformed: a data event that is not a JSON chat.completion.chunk
	// (the reference skipped such events silently).
	ErrMalformed = errors.New("malformed event")
)

const (
	defaultMaxTokens = results.DefaultMaxTokens
	// errorBodyLimit caps the message taken from an error body.
	errorBodyLimit = 2 << 10
	// errorBodyRead caps how much of an error body is read to find it.
	errorBodyRead = 64 << 10
	// cancelTimeout bounds the best-effort cancel after a policy timeout.
	cancelTimeout = 2 * time.Second
	// drainGrace bounds the wait for the end of the body after [DONE], so
	// the connection can be reused; timings are already taken by then.
	drainGrace = 100 * time.Millisecond
	drainMax   = 64 << 10
)

// errPolicyCause is the cause of the policy-timeout context.
var errPolicyCause = errors.New("stream: policy timeout fired")

// defaultHTTP is used when Client.HTTP is nil: no overall timeout, and
// redirects are not followed (a redirected POST would silently become a
// GET or lose its body), so a 3xx surfaces as an *HTTPError. Its transport
// is NewTransport(0), http.DefaultTransport's settings with small
// per-connection buffers, behind RetryReused.
var defaultHTTP = &http.Client{CheckRedirect: noRedirect, Transport: RetryReused(defaultTransport)}

var defaultTransport = NewTransport(0)

// CloseIdleConnections closes the idle connections of the client used when
// Client.HTTP is nil. Call it when done streaming (for example before a
// goroutine-leak check in TestMain): that transport is benchserve's own,
// so http.DefaultTransport.CloseIdleConnections does not reach it.
func CloseIdleConnections() { defaultTransport.CloseIdleConnections() }

// Per-connection buffer sizes of NewTransport (net/http's default is 4 KiB
// each).
const (
	// transportWriteBuffer holds the request head and small bodies; a
	// chat request is a few hundred bytes, and larger bodies are written
	// through the buffer in pieces.
	transportWriteBuffer = 1 << 10
	// transportReadBuffer holds the response head and the chunked-encoding
	// framing; the SSE events themselves are assembled in r3labs'
	// EventStreamReader buffer, so this one only needs to hold a header
	// line and amortise reads when several chunks are waiting.
	transportReadBuffer = 1 << 10
)

// NewTransport returns an *http.Transport suited to many concurrent
// streams: a clone of http.DefaultTransport (proxy from the environment,
// dial, TLS and idle timeouts, HTTP/2 for https) whose per-connection
// write buffer is 1 KiB and read buffer 1 KiB instead of 4 KiB each, which
// saves 6 KiB of heap per open connection (the request is small; events
// are assembled in the SSE reader's own buffer). When conns > 0 it also
// keeps up to conns idle connections (MaxIdleConns and
// MaxIdleConnsPerHost; net/http keeps only 2 per host by default), so a
// closed loop of conns streams reuses its connections round after round
// instead of dialling. The caller owns the transport: CloseIdleConnections
// releases its connections.
func NewTransport(conns int) *http.Transport {
	var tr *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		tr = dt.Clone()
	} else { // replaced by the program: start from net/http's defaults
		tr = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true,
			MaxIdleConns: 100, IdleConnTimeout: 90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second, ExpectContinueTimeout: time.Second}
	}
	tr.WriteBufferSize = transportWriteBuffer
	tr.ReadBufferSize = transportReadBuffer
	if conns > 0 {
		tr.MaxIdleConns = max(conns, tr.MaxIdleConns)
		tr.MaxIdleConnsPerHost = max(conns, 2)
	}
	return tr
}

// noRedirect stops at the first redirect response.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// httpClient returns the client for POSTs. A caller's client without a
// redirect policy of its own gets a shallow copy that does not follow
// redirects either: Go's default policy turns a 301/302 POST into a GET
// without body and resends 307/308 silently, so a mistyped base URL would
// be measured against whatever the redirect points at. A caller's explicit
// CheckRedirect is respected.
func (c *Client) httpClient() *http.Client {
	if c.HTTP == nil {
		return defaultHTTP
	}
	if c.HTTP.CheckRedirect != nil {
		return c.HTTP
	}
	hc := *c.HTTP
	hc.CheckRedirect = noRedirect
	return &hc
}

func (c *Client) maxEventBytes() int {
	if c.MaxEventBytes > 0 {
		return c.MaxEventBytes
	}
	return DefaultMaxEventBytes
}

func (c *Client) maxContentBytes() int {
	switch {
	case c.MaxContentBytes > 0:
		return c.MaxContentBytes
	case c.MaxContentBytes < 0:
		return int(^uint(0) >> 1)
	}
	return DefaultMaxContentBytes
}

func (c *Client) url(path string) string {
	return strings.TrimRight(c.BaseURL, "/") + path
}

// BuildBody returns the JSON request body ChatStream sends for req: model,
// messages, max_tokens (default 256), stream: true, stream_options:
// {include_usage: true}, enable_thinking when non-nil, then req.ExtraBody
// keys merged over it (extra wins, as the reference's body.update). Errors
// come from encoding/json (e.g. a message holding a channel).
func BuildBody(req Request) ([]byte, error) { return buildBody(req, true) }

// buildBody is the one request builder: BuildBody's body, streamed or
// not (a non-streamed body has "stream": false and no stream_options).
func buildBody(req Request, streamed bool) ([]byte, error) {
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = defaultMaxTokens
	}
	msgs := req.Messages
	if msgs == nil {
		msgs = []results.Message{}
	}
	body := map[string]any{
		"model":          req.Model,
		"messages":       msgs,
		"max_tokens":     maxTokens,
		"stream":         streamed,
		"stream_options": map[string]any{"include_usage": true},
	}
	if !streamed {
		delete(body, "stream_options")
	}
	if req.EnableThinking != nil {
		body["enable_thinking"] = *req.EnableThinking
	}
	for k, v := range req.ExtraBody {
		body[k] = v
	}
	return json.Marshal(body)
}

func (c *Client) setHeaders(h http.Header) { openai.Authorize(h, c.APIKey) }

// ChatStream sends one streamed chat completion and measures it. It ports
// the reference's stream_chat_completion: POST {BaseURL}/v1/chat/completions
// with the body from BuildBody, "Accept: text/event-stream" and, when
// APIKey is set, "Authorization: Bearer <key>".
//
// The body is split into events by r3labs/sse's EventStreamReader (CRLF,
// CR, split reads; events up to MaxEventBytes) and the fields are parsed
// per the SSE standard (see the package doc). The stream is complete at
// the [DONE] sentinel; a final event without a trailing blank line counts.
//
// It always returns a non-nil *Result; on error it holds what was measured
// up to the failure (StatusCode, RequestID, partial Content/Reasoning/
// ToolCalls, TokenChunks, ITLms, Usage if it came, and timings with E2ELms
// at the failure). Errors:
//
//   - *HTTPError for a non-2xx answer (including a 3xx, which is not
//     followed by the default client; Message says where it pointed);
//   - *ServerError when the server reports an error inside the stream;
//   - ErrTruncated when the body ended without [DONE];
//   - ErrConnectionLost (and the net error) when the connection broke
//     mid-body; ErrEventTooLarge; ErrMalformed for a non-JSON data event;
//   - ErrPolicyTimeout when req.Timeout fired: Cancel(RequestID) is tried
//     first, while the request is still live, with its own 2 s timeout
//     (when an id is known), then the body is closed; the message gives
//     the elapsed time (limit plus the cancel call's round trip);
//   - ctx.Err() (wrapped) when the caller's ctx ended;
//   - other send errors (connection refused, …) wrapped.
//
// Safe for concurrent use; each call uses one connection from the HTTP
// client and releases it before returning.
func (c *Client) ChatStream(ctx context.Context, req Request) (*Result, error) {
	st := &state{res: &Result{}, maxText: c.maxContentBytes(), keep: req.KeepEvents, stopAfter: req.StopAfterChunks}
	body, err := req.Body, error(nil)
	if body == nil {
		body, err = BuildBody(req)
	}
	if err != nil {
		st.res.StartedAt = time.Now()
		return st.res, fmt.Errorf("stream: chat: encode request: %w", err)
	}
	// One clock: the start instant is taken before the policy timer is
	// created, so a request cut at the limit L reports E2E >= L.
	st.start = time.Now()
	st.res.StartedAt = st.start
	policyCtx := ctx
	if req.Timeout > 0 {
		st.deadline = st.start.Add(req.Timeout)
		// When the policy timeout fires, ask the server to cancel while
		// the request is still live (after the connection is closed a
		// server has usually forgotten the id), then cut the stream.
		var cancelPolicy context.CancelCauseFunc
		policyCtx, cancelPolicy = context.WithCancelCause(ctx)
		fired := make(chan struct{})
		timer := time.AfterFunc(req.Timeout, func() {
			defer close(fired)
			st.policyFired.Store(true)
			if id := st.liveID.Load(); id != nil {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
				if cerr := c.Cancel(cctx, *id); cerr != nil {
					note := fmt.Sprintf(" (server cancel of %q failed: %v)", *id, cerr)
					st.cancelNote.Store(&note)
				}
				cancel()
			}
			cancelPolicy(errPolicyCause)
		})
		defer func() {
			if !timer.Stop() {
				<-fired // the cancel call must not outlive ChatStream
			}
			cancelPolicy(nil)
		}()
	}
	reqCtx, cancelReq := context.WithCancel(policyCtx)
	defer cancelReq()
	sendCtx := withReusedObserver(reqCtx, func(error) { st.res.ConnectionRetries++ })
	hreq, err := http.NewRequestWithContext(sendCtx, http.MethodPost, c.url("/v1/chat/completions"), bytes.NewReader(body))
	if err != nil {
		return st.res, fmt.Errorf("stream: chat: build request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	c.setHeaders(hreq.Header)
	st.res.SentRequestID = setRequestID(hreq.Header)
	if c.beforeSend != nil {
		c.beforeSend()
	}
	resp, err := c.httpClient().Do(hreq)
	if err != nil {
		st.finish(time.Now())
		return st.res, c.fail(ctx, req, st, nil, fmt.Errorf("stream: chat: send: %w", err))
	}
	defer resp.Body.Close()
	st.res.StatusCode = resp.StatusCode
	st.res.HeaderRequestID = resp.Header.Get(requestIDHeader)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		herr := readHTTPError(resp)
		st.finish(time.Now())
		if ctx.Err() != nil || policyCtx.Err() != nil {
			return st.res, c.fail(ctx, req, st, resp.Body, herr)
		}
		return st.res, herr
	}

	err = st.read(resp.Body, c.maxEventBytes())
	st.finish(time.Now())
	if err == nil && !st.overLimit() {
		drain(resp.Body, cancelReq)
		return st.res, nil
	}
	if st.overLimit() {
		// Over the limit however the stream ended (the server may close
		// it cleanly on our cancel call): a policy timeout.
		return st.res, c.fail(ctx, req, st, resp.Body, ErrPolicyTimeout)
	}
	var serr *ServerError
	if errors.As(err, &serr) {
		return st.res, err
	}
	if errors.Is(err, ErrStopped) && ctx.Err() == nil {
		cancelReq() // close the connection: the client went away
		return st.res, err
	}
	if st.events == 0 && errors.Is(err, ErrTruncated) {
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			err = fmt.Errorf("%w (Content-Type %q: the server did not stream)", err, ct)
		}
	}
	return st.res, c.fail(ctx, req, st, resp.Body, err)
}

// fail turns a transport-level failure into the error ChatStream returns,
// giving precedence to the caller's cancellation and then to the policy
// timeout (which also closes the body and asks the server to cancel).
func (c *Client) fail(ctx context.Context, req Request, st *state, body io.Closer, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("stream: chat: %w", ctx.Err())
	}
	if st.overLimit() {
		if body != nil {
			body.Close()
		}
		elapsed := time.Duration(st.res.E2ELms * float64(time.Millisecond)).Round(time.Millisecond)
		note := ""
		if n := st.cancelNote.Load(); n != nil {
			note = *n
		}
		return &PolicyTimeoutError{Limit: req.Timeout, Elapsed: elapsed, Note: note}
	}
	return err
}

// drain reads what is left of the body after [DONE] (normally only the
// end of the chunked encoding) so the connection can be reused, giving up
// after drainGrace.
func drain(body io.Reader, cancel context.CancelFunc) {
	t := time.AfterFunc(drainGrace, cancel)
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainMax))
	t.Stop()
}

// Cancel asks the server to stop generating requestID: POST
// {BaseURL}/v1/requests/{id}/cancel (id path-escaped), as the reference's
// _cancel_server_request. It is best effort: servers without the endpoint
// answer 404, returned as *HTTPError. An empty id is an error.
func (c *Client) Cancel(ctx context.Context, requestID string) error {
	if requestID == "" {
		return errors.New("stream: cancel: empty request id")
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url("/v1/requests/"+url.PathEscape(requestID)+"/cancel"), nil)
	if err != nil {
		return fmt.Errorf("stream: cancel: %w", err)
	}
	c.setHeaders(hreq.Header)
	resp, err := c.httpClient().Do(hreq)
	if err != nil {
		return fmt.Errorf("stream: cancel: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return readHTTPError(resp)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainMax))
	return nil
}

// state is the per-request accumulation.
type state struct {
	res   *Result
	start time.Time

	sse sseParser
	// tr is the body reader; its arrival time stamps each event.
	tr     *trackReader
	dec    chunkDecoder
	chunk  decoded
	events int
	// choices accumulate each choice by its index, in order of first
	// appearance (sorted by index when the stream ends).
	choices []*choiceAcc
	// maxText bounds each choice's content, reasoning and refusal
	// (Client.MaxContentBytes).
	maxText int

	sawToken, sawOutput   bool
	first, last, firstOut time.Duration
	// firstUsage and lastUsage are the completion_tokens of the usage
	// the first and the last token-bearing chunk carried (continuous
	// usage stats), -1 when that chunk carried none.
	firstUsage, lastUsage int
	// pieces and firstPieces are DecodeSpan.Pieces and FirstPieces so
	// far; sawText reports that some chunk carried a piece of text.
	pieces, firstPieces int
	sawText             bool

	// liveID is the request id for the policy-timeout timer's cancel
	// call (another goroutine); cancelNote is what that call reported.
	liveID, cancelNote atomic.Pointer[string]
	// policyFired is set when the policy timeout fires, before the
	// cancel call; deadline is start + the limit (zero without one) and
	// end the instant finish measured E2E to (see overLimit).
	policyFired   atomic.Bool
	deadline, end time.Time
	// keep is Request.KeepEvents, stopAfter Request.StopAfterChunks;
	// kept the bytes of event data kept so far.
	keep, stopAfter, kept int
}

// keepEvent stores ev in Result.Events while fewer than keep are kept.
func (st *state) keepEvent(ev *sseEvent) {
	if len(st.res.Events) >= st.keep || st.kept >= MaxKeptBytes {
		return
	}
	e := Event{Type: string(ev.typ), Error: string(ev.errMsg)}
	data := ev.data
	if len(data) > MaxKeptEventBytes {
		cut := MaxKeptEventBytes
		for cut > 0 && !utf8.RuneStart(data[cut]) {
			cut--
		}
		data, e.Cut = data[:cut], true
	}
	e.Data = string(data)
	st.kept += len(data)
	st.res.Events = append(st.res.Events, e)
}

// choiceAcc accumulates one choice of the stream.
type choiceAcc struct {
	index                        int
	content, reason, refusal     strings.Builder
	tools                        ToolCallAccumulator
	finish                       string
	reasoningChunks              int
	cutContent, cutReason, cutRf bool
}

// acc returns the accumulator of choice index, creating it on first use.
func (st *state) acc(index int) *choiceAcc {
	if len(st.choices) > 0 && st.choices[0].index == index {
		return st.choices[0] // the common case: one choice
	}
	for _, a := range st.choices {
		if a.index == index {
			return a
		}
	}
	a := &choiceAcc{index: index}
	st.choices = append(st.choices, a)
	return a
}

// isDeadline reports whether err is a deadline passing (a context's or
// http.Client.Timeout's), not the connection breaking.
func isDeadline(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// read consumes the event stream until [DONE] or an error.
func (st *state) read(body io.Reader, maxEvent int) error {
	tr := &trackReader{r: body}
	st.tr = tr
	rd := sse.NewEventStreamReader(tr, maxEvent)
	for {
		block, err := rd.ReadEvent()
		if tr.err != nil {
			// The block, if any, is a fragment cut by the failure.
			if isDeadline(tr.err) {
				return fmt.Errorf("stream: chat: read after %d events: the request's deadline passed mid-stream (the transport timeout, --request-timeout-s, or the run's end): %w", st.events, tr.err)
			}
			return fmt.Errorf("stream: chat: read after %d events: %w: %w", st.events, ErrConnectionLost, tr.err)
		}
		if err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return fmt.Errorf("stream: chat: read after %d events: %w: larger than %d bytes (Client.MaxEventBytes): %w", st.events, ErrEventTooLarge, maxEvent, err)
			}
			if err == io.EOF {
				return fmt.Errorf("stream: chat: body ended after %d events: %w", st.events, ErrTruncated)
			}
			return fmt.Errorf("stream: chat: read after %d events: %w: %w", st.events, ErrConnectionLost, err)
		}
		for pos := 0; ; {
			ev, next, ok := st.sse.next(block, pos)
			if !ok {
				break
			}
			pos = next
			done, err := st.handle(&ev)
			if err != nil {
				if errors.Is(err, ErrMalformed) && tr.eof {
					// The final event, cut short by the end of the body.
					return fmt.Errorf("%w (body ended: %w)", err, ErrTruncated)
				}
				return err
			}
			if done {
				st.res.Done = true
				return nil
			}
		}
	}
}

// handle processes one dispatched event.
func (st *state) handle(ev *sseEvent) (done bool, err error) {
	st.events++
	st.res.EventsSeen = st.events
	if st.keep > 0 {
		st.keepEvent(ev)
	}
	if ev.hasErr {
		return false, serverError(ev.errMsg, nil)
	}
	data := bytes.TrimSpace(ev.data)
	if len(data) == 0 {
		return false, nil // keep-alive
	}
	if isDone(data) {
		return true, nil
	}
	if string(ev.typ) == "error" {
		return false, serverError(data, nil)
	}
	ck := &st.chunk
	if err := st.dec.decode(data, ck); err != nil {
		return false, fmt.Errorf("stream: chat: event %d: %w: %w: %.200q", st.events, ErrMalformed, err, data)
	}
	if len(ck.id) > 0 && string(ck.id) != st.res.RequestID {
		st.res.RequestID = string(ck.id)
		id := st.res.RequestID
		st.liveID.Store(&id) // read by the policy-timeout timer
	}
	if ck.errRaw != nil {
		return false, serverError(ck.errRaw, ck.errType)
	}
	if ck.objError {
		// vLLM's ErrorResponse sent as a data event:
		// {"object":"error","message":…,"type":…,"code":400}.
		return false, serverError(data, nil)
	}
	if ck.usage != nil {
		st.res.Usage = ck.usage
	}
	if !ck.hasChoice {
		return false, nil
	}
	tokens, output := st.addChoice(&ck.decodedChoice)
	pieces := choicePieces(&ck.decodedChoice)
	for i := range ck.rest {
		t, o := st.addChoice(&ck.rest[i])
		tokens, output = tokens || t, output || o
		pieces += choicePieces(&ck.rest[i])
	}
	if !tokens {
		return false, nil
	}
	st.sawText = st.sawText || pieces > 0
	pieces = max(pieces, 1) // a token-bearing chunk carried a token
	st.pieces += pieces
	// The chunk arrived when the read that completed it returned, not
	// when it was parsed: chunks that came in one read share one time,
	// so a burst is a burst however slowly the client parses.
	var now time.Time
	if st.tr != nil {
		now = st.tr.at
	}
	if now.IsZero() {
		now = time.Now()
	}
	t := now.Sub(st.start)
	st.res.TokenChunks++
	st.lastUsage = -1
	if ck.usage != nil {
		st.lastUsage = ck.usage.CompletionTokens
	}
	if st.sawToken {
		st.res.addGap(ms(t - st.last))
	} else {
		st.sawToken, st.first = true, t
		st.firstUsage = st.lastUsage
		st.firstPieces = pieces
	}
	st.last = t
	if output && !st.sawOutput {
		st.sawOutput, st.firstOut = true, t
	}
	if st.stopAfter > 0 && st.res.TokenChunks >= st.stopAfter {
		return false, fmt.Errorf("stream: chat: after %d token chunks: %w", st.res.TokenChunks, ErrStopped)
	}
	return false, nil
}

// addChoice adds one choice's delta to its accumulator and reports
// whether it carried any token (content, reasoning, refusal or a tool
// call) and whether any of it was output (all but reasoning).
func (st *state) addChoice(c *decodedChoice) (tokens, output bool) {
	output = len(c.content) > 0 || len(c.toolCalls) > 0 || len(c.refusal) > 0
	tokens = output || len(c.reasoning) > 0
	if !tokens && len(c.finish) == 0 {
		return false, false
	}
	a := st.acc(c.index)
	if len(c.finish) > 0 {
		a.finish = string(c.finish)
	}
	if !tokens {
		return false, false
	}
	if len(c.reasoning) > 0 {
		a.reasoningChunks++
	}
	if len(c.content) > 0 {
		a.cutContent = appendBounded(&a.content, c.content, st.maxText) || a.cutContent
	}
	if len(c.reasoning) > 0 {
		a.cutReason = appendBounded(&a.reason, c.reasoning, st.maxText) || a.cutReason
	}
	if len(c.refusal) > 0 {
		a.cutRf = appendBounded(&a.refusal, c.refusal, st.maxText) || a.cutRf
	}
	if len(c.toolCalls) > 0 {
		a.tools.Add(c.toolCalls)
	}
	return tokens, output
}

// overLimit reports whether the request counts as timed out: the policy
// timer fired and the request ended at or after its deadline. A stream
// that ended before the deadline keeps its own outcome even when the
// timer fired before ChatStream could stop it.
func (st *state) overLimit() bool {
	return st.policyFired.Load() && !st.deadline.IsZero() && !st.end.Before(st.deadline)
}

// finish fills the Result's derived fields at time end.
func (st *state) finish(end time.Time) {
	r := st.res
	if st.start.IsZero() {
		st.start = end
	}
	st.end = end
	e := end.Sub(st.start)
	first, last := st.first, st.last
	if !st.sawToken {
		first, last = e, e
	}
	n := r.TokenChunks
	r.PromptTokens, r.CompletionTokens = 0, r.TokenChunks
	if u := r.Usage; u != nil {
		r.PromptTokens, r.CompletionTokens = u.PromptTokens, u.CompletionTokens
		if u.CompletionTokens > 0 {
			n = u.CompletionTokens
		}
	}
	t := ComputeTimings(first, last, e, r.TokenChunks, n, r.PromptTokens)
	r.TTFTms, r.E2ELms, r.PromptTPS = t.TTFTms, t.E2ELms, t.PromptTPS
	r.RefTPOTms, r.RefGenTPS = t.TPOTms, t.GenTPS
	d := MeasureDecode(DecodeSpan{Chunks: r.TokenChunks, Span: last - first, Tokens: n,
		UsageTokens: r.Usage != nil && r.Usage.CompletionTokens > 0,
		ChunkUsage:  st.sawToken && st.firstUsage >= 0 && st.lastUsage >= 0,
		FirstUsage:  st.firstUsage, LastUsage: st.lastUsage,
		FirstPieces: st.firstPieces, Pieces: st.textPieces()})
	r.TPOTms, r.GenTPS, r.DecodeTokens, r.DecodeMethod = d.TPOTms, d.GenTPS, d.Tokens, d.Method
	r.DecodeTiming, r.DecodeNote = d.Reason, d.Note
	if r.DecodeTiming != "" {
		r.ITLms = nil
		if r.DecodeTiming != DecodeFewChunks {
			// The reference's figures over no span, or a burst's, are
			// not measurements either (0, or millions of tokens/s).
			r.RefTPOTms, r.RefGenTPS = math.NaN(), math.NaN()
		}
	}
	r.HasOutput = st.sawOutput
	if st.sawOutput {
		r.TTFOms = ms(st.firstOut)
	}
	slices.SortStableFunc(st.choices, func(a, b *choiceAcc) int { return cmp.Compare(a.index, b.index) })
	r.Choices = nil
	if len(st.choices) > 1 {
		r.Choices = make([]Choice, len(st.choices))
		for i := range st.choices {
			r.Choices[i] = st.choices[i].result()
		}
	}
	var c0 Choice
	if len(st.choices) > 0 {
		c0 = st.choices[0].result()
	}
	r.FinishReason = c0.FinishReason
	r.Content, r.Reasoning, r.Refusal = c0.Content, c0.Reasoning, c0.Refusal
	r.ContentTruncated, r.ReasoningTruncated = c0.ContentTruncated, c0.ReasoningTruncated
	r.ToolCalls = c0.ToolCalls
	r.ReasoningChunks = c0.ReasoningChunks
}

// result is the choice as a Choice.
func (a *choiceAcc) result() Choice {
	return Choice{
		Index: a.index, FinishReason: a.finish,
		Content: a.content.String(), Reasoning: a.reason.String(), Refusal: a.refusal.String(),
		ContentTruncated: a.cutContent || a.cutRf, ReasoningTruncated: a.cutReason,
		ToolCalls: a.tools.Calls(), ReasoningChunks: a.reasoningChunks,
	}
}

// appendBounded appends p to b while b stays within limit bytes, cutting
// on a rune boundary; it reports whether anything was dropped. A zero
// limit (a state built without a Client) means no limit.
func appendBounded(b *strings.Builder, p []byte, limit int) bool {
	if limit <= 0 || b.Len()+len(p) <= limit {
		b.Write(p)
		return false
	}
	room := limit - b.Len()
	if room <= 0 {
		return len(p) > 0
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	b.Write(p[:cut])
	return true
}

// CountPromptTokens sends req without streaming, with max_tokens 1, and
// returns usage.prompt_tokens (reference: count_prompt_tokens). Errors:
// the request could not be sent, an HTTP error (*HTTPError), a body
// without usage.
func (c *Client) CountPromptTokens(ctx context.Context, req Request) (int, error) {
	req.MaxTokens = 1
	body, err := buildBody(req, false)
	if err != nil {
		return 0, fmt.Errorf("stream: count prompt tokens: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url("/v1/chat/completions"), bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("stream: count prompt tokens: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	c.setHeaders(hreq.Header)
	resp, err := c.httpClient().Do(hreq)
	if err != nil {
		return 0, fmt.Errorf("stream: count prompt tokens: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return 0, readHTTPError(resp)
	}
	var data struct {
		Usage *results.Usage `json:"usage"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&data); err != nil || data.Usage == nil {
		return 0, fmt.Errorf("stream: count prompt tokens: no usage in the answer")
	}
	return data.Usage.PromptTokens, nil
}
