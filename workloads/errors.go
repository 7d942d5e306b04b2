package workloads

import (
	"fmt"
	"strconv"
	"strings"
)

// FieldError is one problem in a workload file. It prints as
//
//	workloads/examples/smoke.json: case "greet": checks.min_chars: want an integer >= 0, got "x"
//
// leaving out the parts that are empty: File when Parse was given no path,
// the case when the problem is not inside one, Field when the problem is
// the whole document or the whole case.
type FieldError struct {
	// File is the workload path as given to Load or Parse.
	File string
	// CaseID is the case's "id" as written, or "" when it has none (the
	// case is then named by position, "case #2").
	CaseID string
	// CaseIndex is the case's 1-based position in "cases", or 0 when the
	// problem is not inside a case (so a zero FieldError names no case).
	CaseIndex int
	// Field is the path of the offending value inside the case, or inside
	// the document when CaseIndex is 0: "max_tokens", "messages[1]",
	// "checks.required_regex[0]", "defaults.extra_body", "request_path".
	Field string
	// Err says what is wrong.
	Err error
}

// Error formats the problem as described on FieldError.
func (e *FieldError) Error() string {
	var parts []string
	if e.File != "" {
		parts = append(parts, e.File)
	}
	if e.CaseIndex > 0 {
		if e.CaseID != "" {
			parts = append(parts, "case "+strconv.Quote(e.CaseID))
		} else {
			parts = append(parts, fmt.Sprintf("case #%d", e.CaseIndex))
		}
	}
	if e.Field != "" {
		parts = append(parts, e.Field)
	}
	msg := "<nil>"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	parts = append(parts, msg)
	return strings.Join(parts, ": ")
}

// Unwrap returns Err.
func (e *FieldError) Unwrap() error { return e.Err }

// LoadError is what Load and Parse return when a workload file has
// problems: every problem found, in file order, under one header (like
// testing/fstest.TestFS). errors.As finds each *FieldError through it.
type LoadError struct {
	// File is the workload path as given.
	File string
	// Problems is never empty.
	Problems []*FieldError
}

// Error returns "workload: load FILE: N problems:" followed by one problem
// per line.
func (e *LoadError) Error() string {
	var b strings.Builder
	noun := "problems"
	if len(e.Problems) == 1 {
		noun = "problem"
	}
	fmt.Fprintf(&b, "workload: load %s: %d %s:", e.File, len(e.Problems), noun)
	for _, p := range e.Problems {
		b.WriteString("\n")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap returns the problems, for errors.As and errors.Is.
func (e *LoadError) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}
