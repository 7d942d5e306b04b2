package conformance

import (
	"reflect"
	"regexp"

	"github.com/benchserve/benchserve/internal/contract"
	"sort"
)

// choicesN judges choices.n: n choices come, indexed 0 to n-1, and each
// keeps the per-choice rules (its first delta has role "assistant", it
// carries a token, it has exactly one finish_reason).
func (r *contractRun) choicesN(st *streamed) Outcome {
	want := r.intParam("n", 2)
	idx := choiceIndexes(st)
	exp := make([]int, want)
	for i := range exp {
		exp[i] = i
	}
	if !reflect.DeepEqual(idx, exp) {
		return failed(st.sentText(), st.finishText(), "n %d gave choice indexes %v", want, idx)
	}
	// The per-choice rules, which the other contracts judge with n 1 only.
	for _, rule := range []func(*streamed) Outcome{firstRole, finishOnce, everyChoiceCarries} {
		if o := rule(st); o.Verdict != contract.Pass {
			return o
		}
	}
	return pass("choices %v, each with role \"assistant\" first, a token and one finish_reason", idx)
}

// everyChoiceCarries passes when every choice of the stream carried a
// token (content, reasoning, refusal or a tool call).
func everyChoiceCarries(st *streamed) Outcome {
	carried := map[int]bool{}
	for _, v := range st.chunks {
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			carried[index(ch)] = carried[index(ch)] || carries(ch.Delta)
		}
	}
	for _, i := range choiceIndexes(st) {
		if !carried[i] {
			return failed("", st.errText(), "choice %d carried no token", i)
		}
	}
	return pass("every choice carried a token")
}

// nMentioned matches an error message that names n (or choices): the
// refusal choices.n accepts from a server that serves one choice only.
var nMentioned = regexp.MustCompile(`(?i)\bn\b|\bchoices\b`)

// choiceIndexes is the sorted distinct choice indexes of the stream.
func choiceIndexes(st *streamed) []int {
	seen := map[int]bool{}
	for _, v := range st.chunks {
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			seen[index(ch)] = true
		}
	}
	out := make([]int, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}
