package benchserve_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a workload run leaves a goroutine (or an
// open connection's read loop) behind.
//
// The package imports neither history (SQLite) nor report (gonum/plot): the
// README's main job compiles only what a user's test links. A .db output or
// an .html report of these tests is rendered by the CLI instead
// (`go tool benchserve report out/run.json --output out/report.html`).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
