package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConformanceSaysUnsupported: a server that refuses n > 1 with a 400
// naming n gets UNSUPPORTED on choices.n's line and in the summary's
// counts, and the run passes (it is neither a failure nor a warning).
func TestConformanceSaysUnsupported(t *testing.T) {
	fx := conformanceFixture(t)
	target, err := url.Parse(fx.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"n":2`)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error": {"message": "n > 1 is not supported", "type": "invalid_request_error"}}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	res := invoke(t, "conformance", "--url", srv.URL, "--api-key", conformanceKey, "--case-tag", "choices")
	assert.Equal(t, ExitOK, res.code, "an unsupported feature does not fail the run:\n%s\n%s", res.stdout, res.stderr)
	assert.Contains(t, contractBlock(res.stdout, "choices.n"), "UNSUPPORTED", "choices.n's line says unsupported:\n%s", res.stdout)
	assert.Contains(t, res.stdout, "1 unsupported", "the summary counts it:\n%s", res.stdout)
}
