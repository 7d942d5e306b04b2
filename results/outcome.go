package results

// Outcome is a request's verdict, decided once by the engine when it
// assembles the record, from the request's error and the case's checks;
// every door (benchtest.RunWorkload, BenchSweep, BenchWorkload, the CLI's
// workload, sweep and capacity modes) reports this one value, so one
// answer passes or fails alike whichever door sent it.
type Outcome string

// The outcomes of a request (Record.Outcome).
const (
	// OutcomePass: the request succeeded and every check passed.
	OutcomePass Outcome = "pass"
	// OutcomeCapped: the request succeeded and the answer ended by
	// max_tokens (finish_reason "length") while the case's checks state no
	// finish_reason: the reference's basic validation calls it
	// truncated (Quality.OK false, the row not validated), but it is the
	// expected ending of a capped benchmark, not a failure. A case whose
	// checks state finish_reason decides for itself: ["stop"] fails a
	// capped answer, ["stop", "length"] passes it; a capped answer that
	// fails any other check fails.
	OutcomeCapped Outcome = "capped"
	// OutcomeFail: the request succeeded but its answer failed a check
	// (ErrorKind KindQuality), or its protocol contract failed the run.
	OutcomeFail Outcome = "fail"
	// OutcomeError: the request failed (Record.Error; ErrorKind says
	// how), or the run was stopped while it was in flight
	// (KindInterrupted).
	OutcomeError Outcome = "error"
)

// Failed reports whether o counts against a run: fail and error do, pass
// and capped do not.
func (o Outcome) Failed() bool { return o == OutcomeFail || o == OutcomeError }
