package integration

import (
	"net/http"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/benchserve/benchserve/internal/stream"
)

// plainTransport serves the tests' raw HTTP requests (plainHTTP), so that
// TestMain can close its connections before looking for leaks. plainHTTP
// sends $BENCHSERVE_API_KEY, when set, as the runner and benchtest do, and
// like them sends a request again when the server closed the reused
// connection unanswered (llama-server does after every streamed answer).
var (
	plainTransport = &http.Transport{}
	plainHTTP      = &http.Client{Transport: keyed{stream.RetryReused(plainTransport)}, Timeout: 2 * time.Minute}
)

// envAPIKey names the key of a server that requires one (llama-server in
// CI), as benchtest reads it.
const envAPIKey = "BENCHSERVE_API_KEY"

// keyed sends $BENCHSERVE_API_KEY as a Bearer token on requests that carry
// no Authorization of their own.
type keyed struct{ rt http.RoundTripper }

func (k keyed) RoundTrip(req *http.Request) (*http.Response, error) {
	key := os.Getenv(envAPIKey)
	if key == "" || req.Header.Get("Authorization") != "" {
		return k.rt.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+key)
	return k.rt.RoundTrip(req)
}

// TestMain checks for leaked goroutines, connections included: every test
// closes the transports it creates (runner.Close, the client's Cleanup).
func TestMain(m *testing.M) {
	if os.Getenv(envURL) == "" {
		// Say once, up front, why everything will be skipped.
		os.Stderr.WriteString(skipMessage + "\n")
	}
	code := m.Run()
	plainTransport.CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}
