package results

import "strings"

// IssueInterrupted is the quality issue of a record whose request was in
// flight when the run was stopped (MarkInterrupted). It is what the
// quality_issues column of the CSV, SQL and SQLite rows shows for it.
const IssueInterrupted = "interrupted: the run was stopped while this request was in flight"

// MarkInterrupted marks r as the record of a request the run's stop cut
// (Ctrl-C, SIGTERM, go test -timeout; KindInterrupted), not a
// failed measurement: Interrupted, OK and Quality.OK false, Outcome
// error of kind KindInterrupted, Quality.Issues
// exactly [IssueInterrupted] (the checks of a cut answer mean nothing),
// Policy.WithinTimeout nil (no outcome), and Error prefixed with
// "interrupted: " ("interrupted" when it was empty). The metrics are kept
// as measured up to the stop. Summarize leaves the record out of every
// statistic and count except InterruptedCount. Marking twice changes
// nothing.
func MarkInterrupted(r *Record) {
	r.Interrupted = true
	r.OK = false
	r.Quality.OK = false
	r.Quality.Issues = []string{IssueInterrupted}
	r.Policy.WithinTimeout = nil
	r.Outcome, r.ErrorKind = OutcomeError, KindInterrupted
	switch {
	case r.Error == "":
		r.Error = "interrupted"
	case r.Error != "interrupted" && !strings.HasPrefix(r.Error, "interrupted: "):
		r.Error = "interrupted: " + r.Error
	}
}

// measured returns the records that are not Interrupted (records itself
// when none is) and how many were left out.
func measured(records []Record) ([]Record, int) {
	n := 0
	for _, r := range records {
		if r.Interrupted {
			n++
		}
	}
	if n == 0 {
		return records, 0
	}
	out := make([]Record, 0, len(records)-n)
	for _, r := range records {
		if !r.Interrupted {
			out = append(out, r)
		}
	}
	return out, n
}
