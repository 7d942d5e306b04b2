package integration

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines. Idle keep-alive connections held
// by the runner's and the stream client's HTTP transports are not leaks:
// their read/write loops park until the transport closes them.
func TestMain(m *testing.M) {
	if os.Getenv(envURL) == "" {
		// Say once, up front, why everything will be skipped.
		os.Stderr.WriteString(skipMessage + "\n")
	}
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
	)
}
