package benchtest

import (
	"slices"
	"testing"

	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// OnRecord calls fn with each case's record (RunWorkload, RunConformance)
// inside the case's subtest, after the case was judged, so that what fn
// reports (t.Errorf) fails that subtest alone. failedChecks are the
// names of the case's checks that failed (checks.Issue.Check:
// "min_chars", "json", "response" for the basic validation, …), sorted,
// without duplicates; empty when every check held and for a capped
// answer (Outcome "capped": not validated, no check failed). fn is not called for a case that was skipped or interrupted, nor
// for a record that failed before judging stopped the subtest (t.Fatal).
// Several OnRecord options run in the order given. OnRecord does not
// apply to benchmarks.
//
// Snapshots build on it: a test that imports go-snaps matches each
// record's fingerprint (results.Record.Fingerprint), and a changed
// answer fails its case's subtest with go-snaps' diff:
//
//	benchtest.OnRecord(func(t *testing.T, rec results.Record, failedChecks []string) {
//		snaps.MatchJSON(t, rec.Fingerprint(failedChecks))
//	})
func OnRecord(fn func(t *testing.T, rec results.Record, failedChecks []string)) Option {
	return func(c *config) { c.given("OnRecord"); c.onRecord = append(c.onRecord, fn) }
}

// runOnRecord calls the OnRecord functions for one judged outcome.
func runOnRecord(t *testing.T, fns []func(*testing.T, results.Record, []string), out runner.Outcome) {
	t.Helper()
	if len(fns) == 0 || t.Skipped() || out.Record.Interrupted {
		return
	}
	var failed []string
	// A capped answer was not validated (results.OutcomeCapped): its
	// issue says why, it is no failed check.
	for _, is := range out.Issues {
		if out.Record.Outcome == results.OutcomeCapped {
			break
		}
		if is.Check != "" {
			failed = append(failed, is.Check)
		}
	}
	slices.Sort(failed)
	failed = slices.Compact(failed)
	if failed == nil {
		failed = []string{}
	}
	for _, fn := range fns {
		fn(t, out.Record, failed)
	}
}
