package stream

import (
	"crypto/rand"
	"net/http"
)

// requestIDHeader carries a request's id to the server (vLLM, SGLang and
// most proxies log it and many echo it back).
const requestIDHeader = "X-Request-Id"

// setRequestID gives h a fresh random X-Request-Id ("bs-" and 26 base32
// characters, 130 random bits) unless the caller set one, and returns the
// id sent: unique per request, so each record joins the server's logs.
func setRequestID(h http.Header) string {
	if id := h.Get(requestIDHeader); id != "" {
		return id
	}
	id := "bs-" + rand.Text()
	h.Set(requestIDHeader, id)
	return id
}
