package stream

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/r3labs/sse/v2"

	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

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
	// endpoint is the API the stream answers (Request.Endpoint): it
	// chooses how an event is read.
	endpoint workloads.Endpoint
	// resp is the Responses-API reader's state (endpoint "responses").
	resp responseState
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
			if err == io.EOF && st.endpoint == workloads.EndpointResponses {
				return fmt.Errorf("stream: responses: body ended after %d events without a terminal event (response.completed, .incomplete or .failed): %w", st.events, ErrTruncated)
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
	switch st.endpoint {
	case workloads.EndpointResponses:
		return st.handleResponse(ev, data)
	case workloads.EndpointCompletions:
		if isDone(data) {
			return true, nil
		}
		return false, st.handleCompletion(data)
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
	st.setID(ck.id)
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
	return false, st.addChunk(&ck.decodedChoice, ck.rest, ck.usage)
}

// setID records the request id the server assigned (a chunk's "id", a
// response's "id") for the Result and the policy-timeout timer.
func (st *state) setID(id []byte) {
	if len(id) > 0 && string(id) != st.res.RequestID {
		st.res.RequestID = string(id)
		s := st.res.RequestID
		st.liveID.Store(&s) // read by the policy-timeout timer
	}
}

// addChunk adds one event's choices (first, then rest) and, when they
// carried a token, times the event as a token-bearing chunk. usage is the
// usage the event carried (continuous usage stats), nil when none. Every
// endpoint's reader ends here, so the timing rules are the same for all.
func (st *state) addChunk(first *decodedChoice, rest []decodedChoice, usage *results.Usage) error {
	tokens, output := st.addChoice(first)
	pieces := choicePieces(first)
	for i := range rest {
		t, o := st.addChoice(&rest[i])
		tokens, output = tokens || t, output || o
		pieces += choicePieces(&rest[i])
	}
	if !tokens {
		return nil
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
	if usage != nil {
		st.lastUsage = usage.CompletionTokens
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
		return fmt.Errorf("stream: chat: after %d token chunks: %w", st.res.TokenChunks, ErrStopped)
	}
	return nil
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
