package results

// Contract is one protocol contract's outcome in a record (Record.Contract):
// the machine-readable row of a conformance run, one per contract.
type Contract struct {
	// Name is the contract's name, the case id (e.g. "stream.framing").
	Name string `json:"name"`
	// Level is "MUST", "SHOULD" or "MAY".
	Level string `json:"level"`
	// Check is the check kind (conformance.Kind), e.g. "stream_framing".
	Check string `json:"check"`
	// Verdict is "pass", "fail" or "skip" (the rule did not apply).
	Verdict string `json:"verdict"`
	// Failing reports that the verdict fails the run: a MUST that failed,
	// or a SHOULD that failed in a strict run. A SHOULD that failed
	// otherwise is a warning, a MAY is only recorded.
	Failing bool `json:"failing"`
	// Rule is the rule of the OpenAI API reference the contract checks;
	// Reference the page it comes from.
	Rule      string `json:"rule"`
	Reference string `json:"reference"`
	// Evidence says what was found: why the contract passed, failed or
	// was skipped.
	Evidence string `json:"evidence"`
	// Sent and Received are, for a failure, the request and the answer
	// (or the offending chunk), each cut to a readable size; "" otherwise.
	Sent     string `json:"sent,omitempty"`
	Received string `json:"received,omitempty"`
}

// Contracts returns the contract of every record that has one, in record
// order.
func (p *Payload) Contracts() []Contract {
	var out []Contract
	for _, r := range p.Results {
		if r.Contract != nil {
			out = append(out, *r.Contract)
		}
	}
	return out
}
