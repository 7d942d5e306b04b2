// Package longtest gates the tests whose point needs minutes (capacity
// searches by concurrency, a go test run in a scratch module) behind one
// environment variable, so the README's test command stays fast and CI
// still runs them in a step of its own (.ci/run: "long tests").
package longtest

import (
	"os"
	"testing"
)

// Env is the environment variable that runs the long tests: set to "1".
const Env = "BENCHSERVE_LONG"

// Enabled reports whether the long tests run (Env is "1").
func Enabled() bool { return os.Getenv(Env) == "1" }

// Skip skips t unless the long tests run; took says how long the test
// takes and why ("about 30 s: concurrency probes of 120 ms requests"), so
// the skip message says what is left out and how to run it.
func Skip(t testing.TB, took string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("%s; set %s=1 to run it (CI's long-tests step does)", took, Env)
	}
}
