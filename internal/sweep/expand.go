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
	// Rate, when > 0, runs the point as an open loop at that many
	// requests per second (Config.Rates) with Concurrency as the cap on
	// requests in flight, instead of one round of Concurrency requests.
	Rate float64
}

// WithRates returns points with a rate dimension inserted after the
// concurrency (each point once per rate, in order); nil or empty rates
// keep points as they are.
func WithRates(points []Point, rates []float64) []Point {
	if len(rates) == 0 {
		return points
	}
	var out []Point
	for i := 0; i < len(points); {
		// The points of one (prompt set, concurrency) are consecutive.
		j := i
		for j < len(points) && points[j].PromptSet == points[i].PromptSet && points[j].Concurrency == points[i].Concurrency {
			j++
		}
		for _, r := range rates {
			for _, pt := range points[i:j] {
				pt.Rate = r
				out = append(out, pt)
			}
		}
		i = j
	}
	return out
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
