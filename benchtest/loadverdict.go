package benchtest

// The load doors' run-level verdicts: a run stopped by its error-rate
// limit and a client that could not keep up fail the test.

import (
	"testing"

	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// clientLimits, when set, replaces runner.DefaultClientLimits in the load
// doors (a variable so tests can drive the client verdict without
// saturating the machine).
var clientLimits *runner.ClientLimits

// failStopped fails t when the load run was stopped early by its
// error-rate limit (Load.MaxErrorRate), with the numbers.
func failStopped(t testing.TB, sc *results.Schedule) {
	t.Helper()
	if sc.StopReason != "" {
		say(t).Errorf("benchtest: the load run was stopped early: %s; %d of %d requests were not sent", sc.StopReason, sc.Unsent, sc.Requests)
	}
}

// failClient fails t when the load run's client could not keep up (the
// schedule's verdict: its figures measure the client, not the server),
// and logs a valid run's headroom.
func failClient(t testing.TB, sc *results.Schedule) {
	t.Helper()
	switch {
	case sc.ClientValid == nil:
	case *sc.ClientValid:
		say(t).Logf("load: client %s", sc.ClientReason)
	default:
		say(t).Errorf("benchtest: the load run is invalid: %s", sc.ClientReason)
	}
}
