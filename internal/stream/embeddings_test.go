package stream

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// embedServer answers /v1/embeddings after delay with answer(body).
func embedServer(t *testing.T, delay time.Duration, answer func(body map[string]any) (int, string)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		code, text := answer(body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, text)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func b64(v ...float32) string {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestEmbedLatencyAndVectors(t *testing.T) {
	const delay = 70 * time.Millisecond
	var got map[string]any
	srv := embedServer(t, delay, func(body map[string]any) (int, string) {
		got = body
		// Out of index order on purpose: Vectors are in index order.
		return 200, `{"object":"list","model":"e","data":[{"object":"embedding","index":1,"embedding":[0.5,-1]},` +
			`{"object":"embedding","index":0,"embedding":"` + b64(0.25, 2) + `"}],"usage":{"prompt_tokens":6,"total_tokens":6}}`
	})
	res, err := newClient(srv).Embed(context.Background(), EmbedRequest{Model: "e", Input: []string{"a b", "c d e"}, EncodingFormat: "base64"})
	require.NoError(t, err, "a well-formed embeddings answer")
	assert.Equal(t, map[string]any{"model": "e", "input": []any{"a b", "c d e"}, "encoding_format": "base64"}, got, "request body")
	assert.Equal(t, [][]float64{{0.25, 2}, {0.5, -1}}, res.Vectors, "vectors in index order, base64 decoded to the same floats")
	assert.Equal(t, []int{1, 0}, res.Indexes, "indexes as sent")
	assert.Equal(t, 2, res.Dims(), "dimensions")
	assert.Equal(t, 2, res.Inputs, "batch size")
	assert.GreaterOrEqual(t, res.LatencyMS, ms(delay), "latency at least the scripted 70 ms")
	assert.InDelta(t, 2/(res.LatencyMS/1000), res.InputsPerSec, 1e-9, "inputs/s is the batch over the latency")
	assert.LessOrEqual(t, res.InputsPerSec, 2/delay.Seconds(), "inputs/s cannot beat the scripted delay")
	require.NotNil(t, res.Usage, "usage")
	assert.Equal(t, 6, res.Usage.PromptTokens, "prompt tokens")
}

func TestEmbedBadAnswers(t *testing.T) {
	for name, tc := range map[string]struct {
		code int
		body string
	}{
		"count":  {200, `{"data":[{"index":0,"embedding":[1]}]}`},
		"repeat": {200, `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`},
		"vector": {200, `{"data":[{"index":0,"embedding":{"x":1}},{"index":1,"embedding":[2]}]}`},
		"base64": {200, `{"data":[{"index":0,"embedding":"AAA"},{"index":1,"embedding":[2]}]}`},
	} {
		t.Run(name, func(t *testing.T) {
			srv := embedServer(t, 0, func(map[string]any) (int, string) { return tc.code, tc.body })
			_, err := newClient(srv).Embed(context.Background(), EmbedRequest{Model: "e", Input: []string{"a", "b"}})
			assert.ErrorIs(t, err, ErrBadEmbedding, "%s: a malformed answer is an error", name)
		})
	}
}

func TestEmbedHTTPErrorAndTimeout(t *testing.T) {
	srv := embedServer(t, 0, func(map[string]any) (int, string) { return 400, `{"error":{"message":"input is empty"}}` })
	res, err := newClient(srv).Embed(context.Background(), EmbedRequest{Model: "e"})
	var he *HTTPError
	require.ErrorAs(t, err, &he, "a 400 is an HTTPError")
	assert.Equal(t, "input is empty", he.Message, "the server's message")
	assert.Equal(t, 400, res.StatusCode, "status recorded")

	slow := embedServer(t, 5*time.Second, func(map[string]any) (int, string) { return 200, `{}` })
	res, err = newClient(slow).Embed(context.Background(), EmbedRequest{Model: "e", Input: []string{"a"}, Timeout: 50 * time.Millisecond})
	assert.ErrorIs(t, err, ErrPolicyTimeout, "the request's timeout fires")
	assert.GreaterOrEqual(t, res.LatencyMS, 50.0, "latency at least the limit")
}
