package conformance_test

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/benchserve/benchserve/internal/stream"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t.CloseIdleConnections()
	}
	stream.CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
