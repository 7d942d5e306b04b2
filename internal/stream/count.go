package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/benchserve/benchserve/results"
)

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
