package sweep

// Point is one point of a sweep (reference: SweepConfig, the tuple
// (prompt_set, concurrency, thinking, extra_body, repetition_index)).
type Point struct {
	// PromptSet is the prompt set name or path as given.
	PromptSet string
	// Concurrency is the number of simultaneous requests.
	Concurrency int
	// Thinking is the enable_thinking value sent; nil sends none.
	Thinking *bool
	// ExtraBody is the extra body JSON text as given, "" for none.
	ExtraBody string
	// Repetition is the 0-based repetition index.
	Repetition int
}

// Expand returns the Cartesian product of the sweep dimensions unfolded
// over repetitions, in the reference order (reference: expand_sweep,
// itertools.product): prompt sets outermost, then concurrencies, thinking
// values, extra bodies, and repetition 0…repetitions-1 innermost. An empty
// dimension or repetitions < 1 gives no points.
func Expand(promptSets []string, concurrencies []int, thinking []*bool, extraBodies []string, repetitions int) []Point {
	var out []Point
	for _, ps := range promptSets {
		for _, c := range concurrencies {
			for _, th := range thinking {
				for _, eb := range extraBodies {
					for rep := 0; rep < repetitions; rep++ {
						out = append(out, Point{PromptSet: ps, Concurrency: c, Thinking: th, ExtraBody: eb, Repetition: rep})
					}
				}
			}
		}
	}
	return out
}
