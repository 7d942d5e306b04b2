package conformance

import (
	"fmt"
	"time"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// Outcome is a contract's result.
type Outcome struct {
	// Verdict is pass, fail, skip or unsupported.
	Verdict contract.Verdict
	// Evidence says what was found: why the contract passed, failed or
	// was skipped, naming the offending field, chunk or status.
	Evidence string
	// Sent is the request (method, path, body cut to EvidenceRunes).
	Sent string
	// Received is what came back that decided the verdict: the status and
	// body, or the offending event, cut to EvidenceRunes.
	Received string
	// Stream is the streamed answer, nil when the contract streamed none.
	Stream *stream.Result
	// StreamErr is the stream's error, nil when it ended well.
	StreamErr error
	// Status is the HTTP status of the deciding answer, 0 when none came.
	Status int
	// Elapsed is the time the contract's requests took.
	Elapsed time.Duration
	// NotChecked is true when the contract was skipped because the server
	// went away earlier in the run (GoneEvidence): nothing was judged, so
	// a MUST among them cannot be said to hold and fails the run.
	NotChecked bool
}

// Message is the outcome for a person: the contract's name and level, the
// evidence and, for a failure, the rule it breaks with its reference,
// what was sent and what came back.
func (o Outcome) Message(name string, s *workloads.Protocol) string {
	r := contract.Rules[contract.Kind(s.Check)]
	switch o.Verdict {
	case contract.Pass:
		return fmt.Sprintf("%s (%s): holds: %s", name, s.Level, o.Evidence)
	case contract.Skip:
		return fmt.Sprintf("%s (%s): not applicable: %s", name, s.Level, o.Evidence)
	case contract.Unsupported:
		return fmt.Sprintf("%s (%s): unsupported by the server: %s", name, s.Level, o.Evidence)
	}
	msg := fmt.Sprintf("%s (%s): %s; breaks: %s (%s)", name, s.Level, o.Evidence, r.Text, r.Ref)
	if o.Sent != "" {
		msg += "; sent: " + o.Sent
	}
	if o.Received != "" {
		msg += "; got: " + o.Received
	}
	return msg
}

// pass is a passing outcome whose evidence is the formatted text.
func pass(format string, args ...any) Outcome {
	return Outcome{Verdict: contract.Pass, Evidence: fmt.Sprintf(format, args...)}
}

// skip is the outcome of a contract that did not apply, saying why.
func skip(format string, args ...any) Outcome {
	return Outcome{Verdict: contract.Skip, Evidence: fmt.Sprintf(format, args...)}
}

// unsupported is the outcome of a contract whose feature the server said
// (with a 4xx) it does not serve, quoting the refusal.
func unsupported(format string, args ...any) Outcome {
	return Outcome{Verdict: contract.Unsupported, Evidence: fmt.Sprintf(format, args...)}
}

// failed is a failing outcome: the evidence, and what was sent and
// what came back (either may be "" when the evidence says it all).
func failed(sent, got, format string, args ...any) Outcome {
	return Outcome{Verdict: contract.Fail, Evidence: fmt.Sprintf(format, args...), Sent: sent, Received: got}
}

// nm is a server-chosen name (a model, an id, an object, a role, a
// finish_reason, a function name) cut to present.NameLimit bytes, so a
// server's 10 KB model name does not fill the evidence; %q then escapes
// it.
func nm(s string) string { return present.Shorten(s, present.NameLimit) }
