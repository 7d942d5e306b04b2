package cli

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// cliChildEnv makes the test binary run as the benchserve CLI (Main with
// its arguments) instead of running tests, so tests can start real
// benchserve processes (TestShardedProcessesMerge).
const cliChildEnv = "BENCHSERVE_CLI_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(cliChildEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m)
}
