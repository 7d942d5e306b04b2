package tokens_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/tokens"
)

func TestServerReadsVLLMAndLlamaCppShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		want       int
		err        string
	}{
		{"vllm", `{"count": 7, "max_model_len": 4096, "tokens": [1,2,3,4,5,6,7]}`, 200, 7, ""},
		{"llama.cpp", `{"tokens": [1, 2, 3]}`, 200, 3, ""},
		{"ollama", `404 page not found`, 404, 0, "tokens: POST /tokenize: HTTP 404"},
		{"empty", `{}`, 200, 0, `neither "count" nor "tokens"`},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			assert.Equal(t, "/tokenize", r.URL.Path)
			assert.Equal(t, "Bearer k", r.Header.Get("Authorization"))
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(tc.body))
		}))
		c := &tokens.Server{Endpoint: tokens.Endpoint{BaseURL: srv.URL, APIKey: "k", Model: "m", HTTP: srv.Client()}}
		n, err := c.Count(context.Background(), "a b c")
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.name)
		} else {
			require.NoError(t, err, tc.name)
			assert.Equal(t, tc.want, n, tc.name)
		}
		srv.Close()
	}
	n, err := tokens.Words{}.Count(context.Background(), " one  two\nthree ")
	require.NoError(t, err)
	assert.Equal(t, 3, n)
}
