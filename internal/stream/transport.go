package stream

import (
	"net/http"
	"time"
)

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
