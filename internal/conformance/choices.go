package conformance

import (
	"reflect"
	"regexp"
	"sort"
)

// choicesN judges choices.n: n choices come, indexed 0 to n-1.
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
	return pass("choices %v", idx)
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
