package stream

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/benchserve/benchserve/results"
)

// MaxEmbedBodyBytes bounds the /v1/embeddings answer read: 64 MiB, room
// for a batch of 2,048 vectors of 4,096 floats written as JSON text.
const MaxEmbedBodyBytes = 64 << 20

// EmbedRequest is one POST /v1/embeddings: a batch of inputs embedded in
// one request (not streamed).
type EmbedRequest struct {
	Model string
	// Input is the batch, sent as "input": [...] (an empty batch is sent
	// as [], which servers answer 400).
	Input []string
	// EncodingFormat is sent as encoding_format when set ("float" or
	// "base64"); base64 vectors are decoded to the same floats.
	EncodingFormat string
	// ExtraBody keys are merged over the body (they win).
	ExtraBody map[string]any
	// Timeout bounds the request; 0 means none beyond ctx's. When it
	// fires the error wraps ErrPolicyTimeout.
	Timeout time.Duration
}

// EmbedResult is what one embeddings request measured and returned.
type EmbedResult struct {
	// StartedAt is the wall-clock time the request was sent.
	StartedAt time.Time
	// StatusCode is the HTTP status, 0 when no response arrived.
	StatusCode int
	// LatencyMS is the time from sending to the end of the answer's body
	// (the whole batch), in milliseconds.
	LatencyMS float64
	// Inputs is len(EmbedRequest.Input) and InputsPerSec Inputs /
	// LatencyMS seconds; 0 when the request failed.
	Inputs       int
	InputsPerSec float64
	// Vectors are data[].embedding in data[].index order; Indexes the
	// indexes as the server sent them, in its order.
	Vectors [][]float64
	Indexes []int
	// Usage is the server's usage (prompt_tokens, total_tokens), nil when
	// it sent none.
	Usage *results.Usage
	// Model is the answer's "model".
	Model string
}

// Dims returns the length of the first vector, 0 when there is none.
func (r *EmbedResult) Dims() int {
	if len(r.Vectors) == 0 {
		return 0
	}
	return len(r.Vectors[0])
}

// embedAnswer is the JSON of an embeddings answer.
type embedAnswer struct {
	Model string `json:"model"`
	Data  []struct {
		Index     int             `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Usage *results.Usage `json:"usage"`
}

// ErrBadEmbedding: an embeddings answer whose data does not hold one
// vector per input (wrong count, an index out of range or repeated, an
// embedding neither a list of numbers nor base64 of float32s).
var ErrBadEmbedding = errors.New("malformed embeddings answer")

// Embed sends one embeddings request and measures it: POST
// {BaseURL}/v1/embeddings with model, input and encoding_format. It
// always returns a non-nil *EmbedResult; errors: *HTTPError for a non-2xx
// answer, ErrPolicyTimeout (wrapped) when req.Timeout fired, ctx.Err()
// (wrapped), ErrBadEmbedding for an answer without one vector per input,
// and send errors wrapped. Safe for concurrent use.
func (c *Client) Embed(ctx context.Context, req EmbedRequest) (*EmbedResult, error) {
	res := &EmbedResult{Inputs: len(req.Input)}
	input := req.Input
	if input == nil {
		input = []string{}
	}
	body := map[string]any{"model": req.Model, "input": input}
	if req.EncodingFormat != "" {
		body["encoding_format"] = req.EncodingFormat
	}
	for k, v := range req.ExtraBody {
		body[k] = v
	}
	raw, err := json.Marshal(body)
	if err != nil {
		res.StartedAt = time.Now()
		return res, fmt.Errorf("stream: embed: encode request: %w", err)
	}
	// One clock: the start is taken before the timeout's timer, so a
	// request cut at the limit reports a latency of at least the limit.
	start := time.Now()
	res.StartedAt = start
	reqCtx, cancel := ctx, context.CancelFunc(func() {})
	if req.Timeout > 0 {
		reqCtx, cancel = context.WithTimeoutCause(ctx, req.Timeout, errPolicyCause)
	}
	defer cancel()
	hreq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, c.url("/v1/embeddings"), bytes.NewReader(raw))
	if err != nil {
		return res, fmt.Errorf("stream: embed: build request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	c.setHeaders(hreq.Header)
	fail := func(err error) (*EmbedResult, error) {
		res.LatencyMS = ms(time.Since(start))
		switch {
		case ctx.Err() != nil:
			return res, fmt.Errorf("stream: embed: %w", ctx.Err())
		case context.Cause(reqCtx) == errPolicyCause:
			return res, &PolicyTimeoutError{Limit: req.Timeout, Elapsed: time.Since(start).Round(time.Millisecond)}
		}
		return res, err
	}
	resp, err := c.httpClient().Do(hreq)
	if err != nil {
		return fail(fmt.Errorf("stream: embed: send: %w", err))
	}
	defer resp.Body.Close()
	res.StatusCode = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fail(readHTTPError(resp))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxEmbedBodyBytes+1))
	end := time.Now()
	if err != nil {
		return fail(fmt.Errorf("stream: embed: read: %w: %w", ErrConnectionLost, err))
	}
	res.LatencyMS = ms(end.Sub(start))
	if len(data) > MaxEmbedBodyBytes {
		return res, fmt.Errorf("stream: embed: %w: answer larger than %d bytes", ErrBadEmbedding, MaxEmbedBodyBytes)
	}
	if err := res.decode(data); err != nil {
		return res, err
	}
	if res.LatencyMS > 0 {
		res.InputsPerSec = float64(res.Inputs) / (res.LatencyMS / 1000)
	}
	return res, nil
}

// decode fills Vectors, Indexes, Usage and Model from the answer.
func (r *EmbedResult) decode(data []byte) error {
	var a embedAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return fmt.Errorf("stream: embed: %w: %w: %.200q", ErrBadEmbedding, err, data)
	}
	r.Model, r.Usage = a.Model, a.Usage
	if len(a.Data) != r.Inputs {
		return fmt.Errorf("stream: embed: %w: %d vectors for %d inputs", ErrBadEmbedding, len(a.Data), r.Inputs)
	}
	r.Vectors = make([][]float64, len(a.Data))
	r.Indexes = make([]int, len(a.Data))
	for i, d := range a.Data {
		r.Indexes[i] = d.Index
		if d.Index < 0 || d.Index >= len(a.Data) || r.Vectors[d.Index] != nil {
			return fmt.Errorf("stream: embed: %w: data[%d].index %d out of range or repeated", ErrBadEmbedding, i, d.Index)
		}
		v, err := decodeVector(d.Embedding)
		if err != nil {
			return fmt.Errorf("stream: embed: %w: data[%d].embedding: %w", ErrBadEmbedding, i, err)
		}
		r.Vectors[d.Index] = v
	}
	return nil
}

// decodeVector reads an embedding: a JSON list of numbers, or a base64
// string of little-endian float32s (encoding_format "base64", as OpenAI
// and vLLM send it).
func decodeVector(raw json.RawMessage) ([]float64, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("base64: %w", err)
		}
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("base64 of %d bytes is not float32s", len(b))
		}
		v := make([]float64, len(b)/4)
		for i := range v {
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
		return v, nil
	}
	var v []float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, errors.New("neither a list of numbers nor a base64 string")
	}
	return v, nil
}
