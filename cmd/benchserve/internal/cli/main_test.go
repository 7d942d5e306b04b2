package cli

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/benchserve/benchserve/internal/runner"
)

// cliChildEnv makes the test binary run as the benchserve CLI (Main with
// its arguments) instead of running tests, so tests can start real
// benchserve processes (TestShardedProcessesMerge).
const cliChildEnv = "BENCHSERVE_CLI_TEST_CHILD"

func TestMain(m *testing.M) {
	// The tests (and the shard child processes, run concurrently) on a
	// shared machine test everything but the client's verdict, which
	// TestLoadClientVerdict drives itself: their lag limit is an hour.
	clientLimits = &runner.ClientLimits{LagFloorMS: 3_600_000, CPUUtil: 1.01}
	if os.Getenv(cliChildEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m)
}
