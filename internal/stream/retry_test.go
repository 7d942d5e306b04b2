package stream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// freeAddr returns a loopback address nothing listens on (yet).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err, "setup: listen")
	addr := l.Addr().String()
	require.NoError(t, l.Close(), "setup: close")
	return addr
}

// echoServer serves POST bodies back on l until the test ends.
func echoServer(t *testing.T, l net.Listener, hits *atomic.Int64) {
	t.Helper()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b, _ := io.ReadAll(r.Body)
		_, _ = w.Write(b)
	})}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
}

func TestRetryConnectWaitsForALateListener(t *testing.T) {
	addr := freeAddr(t)
	tr := NewTransport(0)
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: RetryConnect(tr, time.Minute)}
	var hits atomic.Int64
	var retries []int
	started := false
	// The listener starts only once the first attempt was refused, so
	// the test does not depend on timing.
	ctx := WithRetryObserver(context.Background(), func(retry int, wait time.Duration, err error) {
		retries = append(retries, retry)
		assert.True(t, NotSent(err), "only connection failures are retried: %v", err)
		if !started {
			started = true
			l, lerr := net.Listen("tcp", addr)
			require.NoError(t, lerr, "start the late listener")
			echoServer(t, l, &hits)
		}
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	require.NoError(t, err, "request")
	resp, err := hc.Do(req)
	require.NoError(t, err, "the request succeeds once the server listens")
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, `{"model":"m"}`, string(body), "the replayed body arrived whole")
	assert.Equal(t, []int{1}, retries, "one retry after the refused connection")
	assert.EqualValues(t, 1, hits.Load(), "the server saw the request once")
}

func TestRetryConnectGivesUpAfterTheWindow(t *testing.T) {
	addr := freeAddr(t)
	tr := NewTransport(0)
	t.Cleanup(tr.CloseIdleConnections)
	var retries int
	ctx := WithRetryObserver(context.Background(), func(int, time.Duration, error) { retries++ })
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/", bytes.NewReader([]byte("x")))
	require.NoError(t, err, "request")
	_, err = RetryConnect(tr, 200*time.Millisecond).RoundTrip(req)
	require.Error(t, err, "nothing ever listens")
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "the last dial error is returned")
	assert.GreaterOrEqual(t, retries, 1, "it retried within the window")
	assert.LessOrEqual(t, retries, 4, "25+50+100 ms fit a 200 ms window, no more")
}

func TestRetryConnectDoesNotRetryUnreplayableOrSentRequests(t *testing.T) {
	tr := NewTransport(0)
	t.Cleanup(tr.CloseIdleConnections)
	var retries int
	ctx := WithRetryObserver(context.Background(), func(int, time.Duration, error) { retries++ })

	t.Run("body without GetBody", func(t *testing.T) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+freeAddr(t)+"/", io.NopCloser(strings.NewReader("x")))
		require.NoError(t, err, "request")
		_, err = RetryConnect(tr, time.Minute).RoundTrip(req)
		assert.ErrorIs(t, err, syscall.ECONNREFUSED, "the refusal is returned at once")
	})
	t.Run("connection closed after the request was sent", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err, "listen")
		var reads atomic.Int64
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				buf := make([]byte, 4096)
				_, _ = c.Read(buf)
				reads.Add(1)
				_ = c.Close()
			}
		}()
		t.Cleanup(func() { _ = l.Close(); <-done })
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+l.Addr().String()+"/", strings.NewReader("x"))
		require.NoError(t, err, "request")
		_, err = RetryConnect(tr, time.Minute).RoundTrip(req)
		require.Error(t, err, "the server hung up")
		assert.False(t, NotSent(err), "a hang-up after sending is not a connection failure: %v", err)
	})
	assert.Zero(t, retries, "neither was retried")

	t.Run("context ends the retries", func(t *testing.T) {
		cctx, cancel := context.WithCancel(WithRetryObserver(context.Background(), func(int, time.Duration, error) {}))
		cancel()
		req, err := http.NewRequestWithContext(cctx, http.MethodGet, "http://"+freeAddr(t)+"/", nil)
		require.NoError(t, err, "request")
		_, err = RetryConnect(tr, time.Minute).RoundTrip(req)
		assert.True(t, errors.Is(err, context.Canceled) || NotSent(err), "returns at once: %v", err)
	})
	assert.Same(t, tr, RetryConnect(tr, -1), "a negative window disables the wrapper")
}
