package serverinfo_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/serverinfo"
)

func TestContextLengthReadsEachServersField(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       int
		ok         bool
	}{
		{"vllm", `{"data": [{"id": "other", "max_model_len": 1}, {"id": "m", "max_model_len": 4096}]}`, 4096, true},
		{"llama.cpp", `{"data": [{"id": "m", "meta": {"n_ctx_train": 2048}}]}`, 2048, true},
		{"context_length", `{"data": [{"id": "m", "context_length": 8192}]}`, 8192, true},
		{"ollama says nothing", `{"data": [{"id": "m", "owned_by": "library"}]}`, 0, false},
		{"not json", `nope`, 0, false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(tc.body))
		}))
		p := &serverinfo.Prober{BaseURL: srv.URL, HTTP: srv.Client()}
		n, ok := p.ContextLength(context.Background(), "m")
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.Equal(t, tc.want, n, tc.name)
		srv.Close()
	}
}
