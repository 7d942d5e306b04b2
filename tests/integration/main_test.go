package integration

import (
	"net/http"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// plainTransport serves the tests' raw HTTP requests (plainHTTP), so that
// TestMain can close its connections before looking for leaks.
var (
	plainTransport = &http.Transport{}
	plainHTTP      = &http.Client{Transport: plainTransport, Timeout: 2 * time.Minute}
)

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
