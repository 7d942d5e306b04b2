package benchserve_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a workload run leaves a goroutine (or an
// open connection's read loop) behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
