package stream

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closingServer answers every chat completion with a whole SSE answer
// (Content-Length, no "Connection: close") and then closes the
// connection, without answering, as soon as the client sends its next
// request on it: a server that closes kept-alive connections without
// saying so, met at its worst, when the client has just reused one. It
// alternates a reset (RST) and a plain close (FIN), the "connection
// reset by peer" and "EOF" a client sees. unanswered counts the requests
// it closed on.
func closingServer(t *testing.T) (srv *httptest.Server, unanswered *atomic.Int64) {
	t.Helper()
	unanswered = new(atomic.Int64)
	var conns atomic.Int64
	var handlers sync.WaitGroup
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		_, _ = io.Copy(io.Discard, r.Body)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		body := content("closing", "hi") + usageEv(3, 1) + done
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		if buf.Flush() != nil {
			return
		}
		_ = conn.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := buf.Peek(1); err != nil {
			return // the client closed it, or left it idle
		}
		unanswered.Add(1)
		if tc, ok := conn.(*net.TCPConn); ok && conns.Add(1)%2 == 0 {
			_ = tc.SetLinger(0)
		}
	}))
	t.Cleanup(func() { srv.Close(); handlers.Wait() })
	return srv, unanswered
}

// streamAll sends n chat requests through c, conc at a time, and returns
// the results and errors by request.
func streamAll(c *Client, n, conc int) ([]*Result, []error) {
	res, errs := make([]*Result, n), make([]error, n)
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				res[i], errs[i] = c.ChatStream(context.Background(), Request{Model: "m", Timeout: 10 * time.Second})
			}
		})
	}
	wg.Wait()
	return res, errs
}

// TestReusedConnectionClosedByTheServer: 200 requests, 20 at a time,
// against a server that closes every kept-alive connection after its
// answer: none fails, and each request the server closed on was sent
// once more on a fresh connection and counted.
func TestReusedConnectionClosedByTheServer(t *testing.T) {
	srv, unanswered := closingServer(t)
	tr := NewTransport(20)
	t.Cleanup(tr.CloseIdleConnections)
	c := &Client{BaseURL: srv.URL, HTTP: &http.Client{Transport: RetryReused(tr)}}
	res, errs := streamAll(c, 200, 20)
	failed, retries := 0, 0
	for i := range res {
		if errs[i] != nil {
			failed++
			t.Logf("request %d: %v", i, errs[i])
		}
		require.NotNil(t, res[i], "request %d has a result", i)
		retries += res[i].ConnectionRetries
		assert.LessOrEqual(t, res[i].ConnectionRetries, 1, "request %d: retried at most once", i)
	}
	assert.Zero(t, failed, "no request fails because the server closed a connection it had answered on")
	assert.Positive(t, unanswered.Load(), "the server closed reused connections (the test exercised the race)")
	assert.EqualValues(t, unanswered.Load(), retries, "every request the server closed on was retried once and counted")
	t.Logf("200 requests: %d failed, %d connection retries, %d requests the server closed on", failed, retries, unanswered.Load())
}

// rawServer serves HTTP/1.1 on loopback by hand, keeping connections
// alive, so a test decides what happens on each connection: serve is
// called for every request read, with its 1-based number on the
// connection and how long the connection was idle before it (0 for the
// first), and writes the answer (or not) itself; it returns false to
// close the connection. requests counts every request read.
func rawServer(t *testing.T, serve func(n int, idle time.Duration, conn net.Conn, w *bufio.Writer) bool) (url string, requests *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err, "setup: listen")
	requests = new(atomic.Int64)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				br, bw := bufio.NewReader(conn), bufio.NewWriter(conn)
				var last time.Time
				for n := 1; ; n++ {
					_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					requests.Add(1)
					idle := time.Duration(0)
					if n > 1 {
						idle = time.Since(last)
					}
					if !serve(n, idle, conn, bw) || bw.Flush() != nil {
						return
					}
					last = time.Now()
				}
			})
		}
	})
	t.Cleanup(func() { _ = l.Close(); wg.Wait() })
	return "http://" + l.Addr().String(), requests
}

// answer writes a whole SSE answer with Content-Length and no
// "Connection: close".
func answer(w *bufio.Writer) {
	body := content("raw", "hi") + usageEv(3, 1) + done
	fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// reset closes conn with a RST.
func reset(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
}

// TestIdleConnectionClosedByTheServer: a server that closes connections
// idle for 200 ms (uvicorn's keep-alive timeout is 5 s), met when the
// next request arrives on one just as it closes it (made certain here:
// it closes a connection idle past the limit when the request comes),
// with requests spaced past the idle time: none fails, the retries are
// counted.
func TestIdleConnectionClosedByTheServer(t *testing.T) {
	const idleClose = 200 * time.Millisecond
	var dropped atomic.Int64
	url, _ := rawServer(t, func(n int, idle time.Duration, conn net.Conn, w *bufio.Writer) bool {
		if idle >= idleClose {
			dropped.Add(1)
			return false
		}
		answer(w)
		return true
	})
	tr := NewTransport(4)
	t.Cleanup(tr.CloseIdleConnections)
	c := &Client{BaseURL: url, HTTP: &http.Client{Transport: RetryReused(tr)}}
	failed, retries := 0, 0
	for i := range 8 {
		if i > 0 {
			time.Sleep(idleClose + 50*time.Millisecond)
		}
		res, err := c.ChatStream(context.Background(), Request{Model: "m", Timeout: 10 * time.Second})
		if err != nil {
			failed++
			t.Logf("request %d: %v", i, err)
		}
		retries += res.ConnectionRetries
	}
	assert.Zero(t, failed, "no request fails because the server closed an idle connection")
	assert.Positive(t, dropped.Load(), "the server closed idle connections as requests arrived")
	assert.EqualValues(t, dropped.Load(), retries, "each was retried once and counted")
}

// TestResetMidAnswerIsNotRetried: 60 requests, 10 at a time, against a
// server that answers the first request of each connection and resets
// the second after its headers and one chunk: those are failed requests
// (the answer had begun, so the failure is the server's), never sent
// again.
func TestResetMidAnswerIsNotRetried(t *testing.T) {
	var cut atomic.Int64
	url, requests := rawServer(t, func(n int, _ time.Duration, conn net.Conn, w *bufio.Writer) bool {
		if n == 1 {
			answer(w)
			return true
		}
		cut.Add(1)
		fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		ev := content("raw", "partial")
		fmt.Fprintf(w, "%x\r\n%s\r\n", len(ev), ev)
		_ = w.Flush()
		time.Sleep(50 * time.Millisecond) // let the client read it before the RST
		reset(conn)
		return false
	})
	tr := NewTransport(10)
	t.Cleanup(tr.CloseIdleConnections)
	c := &Client{BaseURL: url, HTTP: &http.Client{Transport: RetryReused(tr)}}
	res, errs := streamAll(c, 60, 10)
	failed, retries := 0, 0
	for i := range res {
		retries += res[i].ConnectionRetries
		if errs[i] != nil {
			failed++
			assert.ErrorIs(t, errs[i], ErrConnectionLost, "request %d: the connection was lost mid-answer", i)
		}
	}
	assert.Positive(t, cut.Load(), "the server cut answers on reused connections")
	assert.EqualValues(t, cut.Load(), failed, "every answer cut mid-stream is a failed request")
	assert.Zero(t, retries, "a request whose answer had begun is never retried")
	assert.EqualValues(t, 60, requests.Load(), "the server saw each request once")
}

// TestSideRequestRetriedOnReusedConnection: non-streamed requests through
// the default client are retried the same way: a cache reset (DELETE,
// which net/http does not resend itself) and a cancel (POST).
func TestSideRequestRetriedOnReusedConnection(t *testing.T) {
	url, _ := rawServer(t, func(n int, _ time.Duration, _ net.Conn, w *bufio.Writer) bool {
		if n > 1 {
			return false // closes a reused connection without answering
		}
		fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"data\":[]}")
		return true
	})
	c := &Client{BaseURL: url}
	t.Cleanup(CloseIdleConnections)
	for i := range 3 {
		ex, err := c.Do(context.Background(), http.MethodDelete, "/v1/cache", nil, nil, 1<<10)
		require.NoError(t, err, "cache reset %d: the closed connection is not the server's answer", i)
		assert.Equal(t, http.StatusOK, ex.Status, "cache reset %d: answered", i)
		assert.NoError(t, c.Cancel(context.Background(), "req-1"), "cancel %d: retried on a fresh connection", i)
	}
}
