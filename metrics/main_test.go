package metrics

import (
	"os"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	v := m.Run()
	if _, err := snaps.Clean(m, snaps.CleanOpts{Sort: true}); err != nil {
		v = 1
	}
	if v == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			v = 1
		}
	}
	os.Exit(v)
}
