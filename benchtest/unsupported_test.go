package benchtest_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
)

// TestInnerConformanceUnsupported runs choices.n, strict, on a fixture
// behind a proxy that refuses n > 1 with a 400 naming n.
func TestInnerConformanceUnsupported(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunConformanceLogsUnsupported (re-executed test binary)")
	}
	fx := fixtures.Start(t, fixtures.Options{Timing: &fixtures.Timing{}})
	target, err := url.Parse(fx.URL)
	if err != nil {
		t.Fatal(err)
	}
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
	benchtest.RunConformance(t, benchtest.WithURL(srv.URL), benchtest.WithModel(fx.Model()), benchtest.WithTags("choices"), benchtest.ConformanceStrict())
}

// TestRunConformanceLogsUnsupported: a feature the server refuses is
// logged as unsupported, its subtest neither failed (even strict) nor
// skipped.
func TestRunConformanceLogsUnsupported(t *testing.T) {
	out, ok := runInner(t, "TestInnerConformanceUnsupported")
	assert.True(t, ok, "an unsupported feature does not fail the test:\n%s", out)
	assert.Contains(t, out, "--- PASS: TestInnerConformanceUnsupported/choices.n", "the subtest passes, not skipped:\n%s", out)
	assert.Contains(t, out, "benchtest: unsupported (SHOULD, does not fail the run): choices.n (SHOULD): unsupported by the server: refused with HTTP 400 naming n", "the log says unsupported:\n%s", out)
}
