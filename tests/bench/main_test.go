package bench_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		serveChild()
		return
	}
	goleak.VerifyTestMain(m)
}
