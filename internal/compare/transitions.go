package compare

import (
	"fmt"
	"strconv"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/results"
)

// transitions are the changes that are regressions whatever the
// numbers: a case whose every base request passed its checks and some
// candidate request did not, and a protocol contract that passed in the
// base and fails in the candidate.
func transitions(b, c *side) []string {
	out := []string{}
	for _, id := range b.cases {
		cr, ok := c.byCase[id]
		if !ok {
			continue
		}
		br := b.byCase[id]
		if failedCount(br) == 0 && contractVerdict(br) == "" {
			if n := failedCount(cr); n > 0 {
				out = append(out, fmt.Sprintf("case %s: passed in the base (%d of %d), fails in the candidate (%d of %d failed): %s",
					strconv.Quote(present.Name(id)), len(br), len(br), n, len(cr), firstIssue(cr)))
			}
		}
		bv, cv := contractVerdict(br), contractVerdict(cr)
		if bv == "pass" && cv == "fail" {
			out = append(out, fmt.Sprintf("contract %s: pass in the base, fail in the candidate", strconv.Quote(present.Name(contractName(cr, id)))))
		}
	}
	return out
}

func failedCount(records []results.Record) int {
	n := 0
	for _, r := range records {
		if !r.Quality.OK {
			n++
		}
	}
	return n
}

func firstIssue(records []results.Record) string {
	for _, r := range records {
		if !r.Quality.OK && len(r.Quality.Issues) > 0 {
			return present.Message(r.Quality.Issues[0])
		}
	}
	return "(no issue recorded)"
}

// contractVerdict is the worst verdict of a contract case's records
// ("fail" over "pass"), "" for an ordinary case.
func contractVerdict(records []results.Record) string {
	v := ""
	for _, r := range records {
		if r.Contract == nil {
			continue
		}
		switch o := r.Contract.Outcome(); {
		case o == "fail":
			return "fail"
		case v == "":
			v = o
		}
	}
	return v
}

func contractName(records []results.Record, fallback string) string {
	for _, r := range records {
		if r.Contract != nil && r.Contract.Name != "" {
			return r.Contract.Name
		}
	}
	return fallback
}

// answer is what a greedy request's answer is compared by: the whole
// content when it was kept, else its preview, and the tool calls' names.
func answer(r results.Record) string {
	s := r.Quality.ContentPreview
	if r.Quality.Content != nil {
		s = *r.Quality.Content
	}
	if r.ToolCalls != nil {
		s += fmt.Sprintf(" [tool calls %v]", r.ToolCalls.Names)
	}
	return s
}

// greedyChanges lists the greedy cases whose base requests all gave one
// answer and whose candidate gave another.
func greedyChanges(b, c *side) []string {
	var out []string
	for _, id := range b.cases {
		br, cr := b.byCase[id], c.byCase[id]
		if len(cr) == 0 || !br[0].Greedy() {
			continue
		}
		want := answer(br[0])
		same := true
		for _, r := range br {
			same = same && r.Error == "" && answer(r) == want
		}
		if !same {
			continue // the base itself did not repeat: nothing to hold the candidate to
		}
		for _, r := range cr {
			if r.Error == "" && answer(r) != want {
				out = append(out, fmt.Sprintf("case %s: the greedy answer changed: %s → %s", strconv.Quote(present.Name(id)),
					strconv.Quote(present.Message(want)), strconv.Quote(present.Message(answer(r)))))
				break
			}
		}
	}
	return out
}

// onlyContracts reports whether every record of s is a protocol
// contract's (a conformance run).
func onlyContracts(s *side) bool {
	for _, r := range s.records {
		if r.Contract == nil {
			return false
		}
	}
	return len(s.records) > 0
}

// contractChanges lists the contracts whose outcome differs between the
// sides, in the base's order then the candidate's new ones.
func contractChanges(b, c *side) []string {
	var out []string
	outcome := func(s *side, id string) string {
		if v := contractVerdict(s.byCase[id]); v != "" {
			return v
		}
		return "absent"
	}
	ids := append([]string{}, b.cases...)
	for _, id := range c.cases {
		if _, ok := b.byCase[id]; !ok {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		bv, cv := outcome(b, id), outcome(c, id)
		if bv == cv {
			continue
		}
		name := contractName(b.byCase[id], contractName(c.byCase[id], id))
		out = append(out, fmt.Sprintf("contract %s: %s → %s", strconv.Quote(present.Name(name)), bv, cv))
	}
	return out
}
