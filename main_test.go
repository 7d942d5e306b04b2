package benchserve_test

import (
	"testing"

	"go.uber.org/goleak"

	// Opt-in output formats: BENCHSERVE_OUTPUT=runs.db (SQLite history)
	// and BENCHSERVE_REPORT=report.html work in this repository's tests.
	// A user's test that does not import them links neither.
	_ "github.com/benchserve/benchserve/history"
	_ "github.com/benchserve/benchserve/report"
)

// TestMain fails the package if a workload run leaves a goroutine (or an
// open connection's read loop) behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
