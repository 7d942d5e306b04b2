package stream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/benchserve/benchserve/internal/openai"
)

// Exchange is one non-streamed request's answer: its HTTP status, its
// Content-Type and at most the limit of its body that was asked for.
type Exchange struct {
	Status      int
	ContentType string
	Body        []byte
}

// Do sends one non-streamed request with the client's HTTP policy (its
// HTTP client, no redirects followed, the Authorization header set in the
// one place): method and path under BaseURL ("/v1/models"), body sent as
// JSON when non-nil. key, when non-nil, replaces APIKey for this request
// ("" sends none: the protocol contracts' missing and wrong keys). It
// reads at most limit bytes of the answer. Errors: the request could not
// be built or sent, or its body could not be read (the Exchange then
// holds the status and what was read).
func (c *Client) Do(ctx context.Context, method, path string, body []byte, key *string, limit int64) (Exchange, error) {
	return c.DoAs(ctx, method, path, body, "application/json", key, limit)
}

// DoAs is Do with the body sent as contentType (the protocol contracts'
// form-encoded body, "application/x-www-form-urlencoded").
func (c *Client) DoAs(ctx context.Context, method, path string, body []byte, contentType string, key *string, limit int64) (Exchange, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url(path), rd)
	if err != nil {
		return Exchange{}, fmt.Errorf("stream: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	k := c.APIKey
	if key != nil {
		k = *key
	}
	openai.Authorize(req.Header, k)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return Exchange{}, fmt.Errorf("stream: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	ex := Exchange{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	ex.Body, err = io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return ex, fmt.Errorf("stream: %s %s: read body: %w", method, path, err)
	}
	return ex, nil
}
