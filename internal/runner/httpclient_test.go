package runner_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/runner"
)

// closingAfterAnswer serves HTTP/1.1 on loopback as llama-server does
// after a streamed answer: the first connection answers one request with
// a kept-alive chunked response, then reads the next request in full and
// closes without a byte of answer; later connections answer normally.
// It returns the server's URL and the number of connections it accepted.
func closingAfterAnswer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err, "setup: listen")
	var conns atomic.Int64
	var wg sync.WaitGroup
	answer := func(w io.Writer) {
		_, _ = io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nKeep-Alive: timeout=5, max=100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
	}
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n := conns.Add(1)
			wg.Go(func() {
				defer c.Close()
				r := bufio.NewReader(c)
				req, err := http.ReadRequest(r)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				answer(c)
				if n > 1 {
					return
				}
				// The next request on this connection is read, never answered.
				if req, err = http.ReadRequest(r); err == nil {
					_, _ = io.Copy(io.Discard, req.Body)
				}
			})
		}
	})
	t.Cleanup(func() { l.Close(); wg.Wait() })
	return "http://" + l.Addr().String(), &conns
}

func TestNewHTTPClientResendsOnAConnectionTheServerClosedAfterItsAnswer(t *testing.T) {
	url, conns := closingAfterAnswer(t)
	hc := runner.NewHTTPClient(0, 0)
	t.Cleanup(hc.CloseIdleConnections)
	for i := range 2 {
		resp, err := hc.Post(url+"/v1/chat/completions", "application/json", bytes.NewReader([]byte(`{"stream":true}`)))
		require.NoError(t, err, "request %d: a POST the server closed a reused connection on, unanswered, is sent again", i)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err, "request %d: read the answer", i)
		assert.Equal(t, "ok", string(body), "request %d: the server's answer", i)
	}
	assert.Equal(t, int64(2), conns.Load(), "the second request went out on the kept-alive connection, then once more on a fresh one")
}
