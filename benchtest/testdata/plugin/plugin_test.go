// Package plugin_test is a user's test as the README writes it: one test
// that imports benchtest and runs a workload. benchtest's size and
// dependency tests build and list it (go test -c, go list -deps -test), so
// their budgets are of what a user's test binary links. It lives under
// testdata so that ./... leaves it alone; go test ./benchtest/testdata/plugin
// runs it against the fixture server.
package plugin_test

import (
	"testing"

	"github.com/benchserve/benchserve/benchtest"
)

func TestWorkload(t *testing.T) { benchtest.RunWorkload(t, "../one.json") }
