package stream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/stream"
)

// TestDoSendsWithTheClientsPolicy: a non-streamed request carries the
// client's key unless the caller replaces it ("" sends none), its body as
// JSON, and reads at most the limit of the answer; a redirect is not
// followed.
func TestDoSendsWithTheClientsPolicy(t *testing.T) {
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/v1/models", http.StatusFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"echo":` + string(body) + `}`))
	}))
	defer srv.Close()
	c := &stream.Client{BaseURL: srv.URL + "/", APIKey: "k1"}
	ctx := context.Background()

	ex, err := c.Do(ctx, http.MethodPost, "/v1/chat/completions", []byte(`{"a":1}`), nil, 1<<10)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, ex.Status)
	assert.Equal(t, "application/json", ex.ContentType)
	assert.Equal(t, `{"echo":{"a":1}}`, string(ex.Body), "the body went out and came back")

	none, wrong := "", "nope"
	_, err = c.Do(ctx, http.MethodGet, "/v1/models", nil, &none, 1<<10)
	require.NoError(t, err)
	_, err = c.Do(ctx, http.MethodGet, "/v1/models", nil, &wrong, 5)
	require.NoError(t, err)
	assert.Equal(t, []string{"Bearer k1", "", "Bearer nope"}, auth, "the client's key, none, the replacement")

	short, err := c.Do(ctx, http.MethodPost, "/x", []byte(`"long body"`), nil, 5)
	require.NoError(t, err)
	assert.Equal(t, `{"ech`, string(short.Body), "at most limit bytes")

	moved, err := c.Do(ctx, http.MethodGet, "/moved", nil, nil, 1<<10)
	require.NoError(t, err)
	assert.Equal(t, http.StatusFound, moved.Status, "a redirect is reported, not followed")
}
