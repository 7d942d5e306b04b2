package conformance

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"

	"github.com/benchserve/benchserve/internal/contract"
)

// embedAnswer is the part of an embeddings answer embeddings.shape reads;
// an embedding is a list of floats or, with encoding_format "base64", a
// string.
type embedAnswer struct {
	Data *[]struct {
		Index     *int            `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Usage *struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// notServed reports whether status says the server does not serve the
// endpoint at all (404, 405, 501): the endpoint's contracts are a skip.
func notServed(status int) bool {
	return status == http.StatusNotFound || status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented
}

// embeddingsShape judges embeddings.shape, the rules of the servers' own
// suites (llama.cpp tools/server/tests/unit/test_embedding.py, vLLM
// tests/entrypoints/openai/test_embedding.py): contract.EmbedInputs gives
// one vector per input, each data[i].index i, all of one length, the
// identical first and last inputs identical vectors, usage.prompt_tokens =
// total_tokens; encoding_format "base64" decodes (little-endian float32s)
// to the same vectors; input [] is answered 4xx. An endpoint not served
// (404, 405, 501 to the first request) is a skip.
func (r *contractRun) embeddingsShape(ctx context.Context) Outcome {
	send := func(body map[string]any) *exchange {
		body["model"] = r.t.Model
		b, _ := json.Marshal(body)
		return r.do(ctx, http.MethodPost, contract.EndpointEmbeddings, b, nil)
	}
	inputs := contract.EmbedInputs
	ex := send(map[string]any{"input": inputs})
	if ex.status == 0 {
		return failed(ex.sentText(), ex.gotText(), "no answer")
	}
	if notServed(ex.status) {
		return withStatus(skip("not served: POST %s is answered HTTP %d", contract.EndpointEmbeddings, ex.status), ex.status)
	}
	floats, o, ok := readEmbeddings(ex, len(inputs), false)
	if !ok {
		return o
	}
	if !sameVector(floats[0], floats[len(floats)-1]) {
		return withStatus(failed(ex.sentText(), ex.gotText(), "the identical inputs 0 and %d got different vectors", len(floats)-1), ex.status)
	}
	b64 := send(map[string]any{"input": inputs, "encoding_format": "base64"})
	decoded, o, ok := readEmbeddings(b64, len(inputs), true)
	if !ok {
		return o
	}
	for i := range floats {
		if !sameVector(floats[i], decoded[i]) {
			return withStatus(failed(b64.sentText(), b64.gotText(), "data[%d]: the base64 embedding decodes to other floats than the float one", i), b64.status)
		}
	}
	empty := send(map[string]any{"input": []string{}})
	if empty.status < 400 || empty.status > 499 {
		return withStatus(failed(empty.sentText(), empty.gotText(), "input [] is answered HTTP %d, not 4xx", empty.status), empty.status)
	}
	return withStatus(pass("%d inputs, %d vectors of %d floats, identical inputs identical, base64 the same floats, input [] answered HTTP %d",
		len(inputs), len(floats), len(floats[0]), empty.status), ex.status)
}

// readEmbeddings reads an embeddings answer for n inputs: status 200, n
// vectors, data[i].index i, one length, usage.prompt_tokens =
// total_tokens when usage came; base64 decodes each embedding from a
// string. ok false gives the failing outcome.
func readEmbeddings(ex *exchange, n int, b64 bool) ([][]float64, Outcome, bool) {
	bad := func(format string, args ...any) ([][]float64, Outcome, bool) {
		return nil, withStatus(failed(ex.sentText(), ex.gotText(), format, args...), ex.status), false
	}
	if ex.status != http.StatusOK {
		return bad("HTTP %d, not 200", ex.status)
	}
	var a embedAnswer
	if err := json.Unmarshal(ex.body, &a); err != nil {
		return bad("the body is not a JSON object: %v", err)
	}
	if a.Data == nil {
		return bad("no data list")
	}
	if len(*a.Data) != n {
		return bad("%d inputs got %d embeddings", n, len(*a.Data))
	}
	out := make([][]float64, n)
	for i, d := range *a.Data {
		if d.Index == nil || *d.Index != i {
			return bad("data[%d] has index %s, not %d", i, indexText(d.Index), i)
		}
		v, err := decodeEmbedding(d.Embedding, b64)
		if err != nil {
			return bad("data[%d].embedding: %v", i, err)
		}
		if len(v) == 0 || i > 0 && len(v) != len(out[0]) {
			return bad("data[%d] has %d floats, data[0] %d", i, len(v), len(out[0]))
		}
		out[i] = v
	}
	if u := a.Usage; u != nil && u.PromptTokens != u.TotalTokens {
		return bad("usage.prompt_tokens %d != total_tokens %d (an embedding generates nothing)", u.PromptTokens, u.TotalTokens)
	}
	return out, Outcome{}, true
}

// decodeEmbedding is an embedding's floats: a JSON list of numbers or,
// with b64, a base64 string of little-endian float32s.
func decodeEmbedding(raw json.RawMessage, b64 bool) ([]float64, error) {
	if !b64 {
		var v []float64
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("not a list of numbers: %w", err)
		}
		return v, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("encoding_format base64 but not a string: %w", err)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not base64: %w", err)
	}
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%d bytes, not float32s", len(b))
	}
	v := make([]float64, len(b)/4)
	for i := range v {
		v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return v, nil
}

// sameVector reports whether a and b are one vector: the same length
// and cosine similarity at least minCosine (a batching server's numerics
// may differ in the last float32 digits between requests or positions in
// a batch, as the servers' own suites allow).
func sameVector(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return na == nb
	}
	return dot/math.Sqrt(na*nb) >= minCosine
}

// minCosine is the least cosine similarity of two vectors sameVector
// calls one: 0.9999, far above what two different texts give and far
// below float32 rounding.
const minCosine = 0.9999

// indexText is an index for evidence: its value or "none".
func indexText(i *int) string {
	if i == nil {
		return "none"
	}
	return fmt.Sprint(*i)
}

// withStatus is o with the HTTP status of its deciding answer.
func withStatus(o Outcome, status int) Outcome {
	o.Status = status
	return o
}
