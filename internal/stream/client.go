package stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
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
	st := &state{res: &Result{}, maxText: c.maxContentBytes(), keep: req.KeepEvents, stopAfter: req.StopAfterChunks, endpoint: req.Endpoint}
	if req.Endpoint == workloads.EndpointEmbeddings {
		st.res.StartedAt = time.Now()
		return st.res, errors.New("stream: chat: the embeddings endpoint is not streamed: use Client.Embed")
	}
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
	hreq, err := http.NewRequestWithContext(sendCtx, http.MethodPost, c.url(req.Endpoint.Path()), bytes.NewReader(body))
	if err != nil {
		return st.res, fmt.Errorf("stream: chat: build request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	c.setHeaders(hreq.Header)
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
