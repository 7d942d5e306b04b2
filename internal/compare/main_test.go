package compare_test

import (
	"os"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(cleaningM{m}) }

// cleaningM runs the tests, then lets go-snaps report obsolete snapshots.
type cleaningM struct{ m *testing.M }

func (c cleaningM) Run() int {
	code := c.m.Run()
	if _, err := os.Stat("__snapshots__"); err == nil {
		snaps.Clean(c.m, snaps.CleanOpts{Sort: true})
	}
	return code
}
