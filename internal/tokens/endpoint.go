package tokens

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Endpoint is the server a counter asks (Server's POST /tokenize, Usage's
// POST /v1/chat/completions) and how.
type Endpoint struct {
	// BaseURL is the server's base URL without /v1 ("http://host:8000").
	BaseURL string
	// APIKey, when set, is sent as a Bearer token.
	APIKey string
	// Model is the model whose tokenizer counts (the model asked).
	Model string
	// HTTP is the client; it must set a timeout (every request has a
	// deadline). nil is refused.
	HTTP *http.Client
}

// post sends body as JSON to path and returns the answer's body, at most
// limit bytes, when it is HTTP 200. Every error begins "tokens: POST
// <path>".
func (e Endpoint) post(ctx context.Context, path string, body any, limit int64) ([]byte, error) {
	where := "tokens: POST " + path
	if e.HTTP == nil {
		return nil, fmt.Errorf("%s: no HTTP client", where)
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(e.BaseURL, "/")+path, bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	resp, err := e.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", where, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", where, resp.StatusCode)
	}
	return raw, nil
}
