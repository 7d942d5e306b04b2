package results

import (
	"fmt"
	"strings"
)

// Contract is one protocol contract's outcome in a record (Record.Contract):
// the machine-readable row of a conformance run, one per contract.
type Contract struct {
	// Name is the contract's name, the case id (e.g. "stream.framing").
	Name string `json:"name"`
	// Level is "MUST", "SHOULD" or "MAY".
	Level string `json:"level"`
	// Check is the check kind (workloads.Protocol.Check), e.g.
	// "stream_framing".
	Check string `json:"check"`
	// Verdict is "pass", "fail", "skip" (the rule did not apply; with
	// Failing, not checked at all: the server went away, Outcome "not
	// checked") or "unsupported" (the server said with a 4xx that it does
	// not serve the feature, e.g. n > 1; never failing).
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

// Outcome is the contract's verdict as people read it: "pass", "fail"
// (it fails the run), "warn" (a SHOULD that broke, not failing the run),
// "info" (a MAY that broke), "skip" (the rule did not apply),
// "not checked" (a skip that fails the run: the server went away before
// the contract could be checked, Evidence says how) or "unsupported"
// (the server refused the feature with a 4xx).
func (c Contract) Outcome() string {
	if c.Verdict == "skip" && c.Failing {
		return "not checked"
	}
	if c.Verdict != "fail" || c.Failing {
		return c.Verdict
	}
	if c.Level == "SHOULD" {
		return "warn"
	}
	return "info"
}

// ContractMatrix renders the contracts of several conformance payloads as
// a Markdown table: one row per contract (in the order they first
// appear), one column per payload headed by its label, each cell the
// contract's Outcome (pass, fail, warn, info, skip, not checked or
// unsupported; "–" where a payload lacks the contract). The rows
// also give the level and the rule, linked to its reference. labels and
// payloads pair up; an error when their counts differ or a payload has
// no contract.
func ContractMatrix(labels []string, payloads []*Payload) (string, error) {
	if len(labels) != len(payloads) {
		return "", fmt.Errorf("results: contract matrix: %d labels for %d payloads", len(labels), len(payloads))
	}
	var order []string
	rows := map[string]Contract{}
	cells := make([]map[string]string, len(payloads))
	for i, p := range payloads {
		cells[i] = map[string]string{}
		cs := p.Contracts()
		if len(cs) == 0 {
			return "", fmt.Errorf("results: contract matrix: %s (run %s) has no contract record", labels[i], p.RunID)
		}
		for _, c := range cs {
			if _, seen := rows[c.Name]; !seen {
				rows[c.Name] = c
				order = append(order, c.Name)
			}
			cells[i][c.Name] = c.Outcome()
		}
	}
	cell := strings.NewReplacer("|", `\|`, "<", "&lt;", "\n", " ") // a cell's text; <think> is not HTML
	var b strings.Builder
	b.WriteString("| contract | level | rule |")
	for _, l := range labels {
		b.WriteString(" " + cell.Replace(l) + " |")
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(labels)) + "\n")
	for _, name := range order {
		c := rows[name]
		rule := cell.Replace(c.Rule)
		fmt.Fprintf(&b, "| `%s` | %s | [%s](%s) |", name, c.Level, rule, c.Reference)
		for i := range payloads {
			v := cells[i][name]
			if v == "" {
				v = "–"
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
