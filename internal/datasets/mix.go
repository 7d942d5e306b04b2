package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// ParamRandomMix is the random generator's weighted mixture of (input,
// output) lengths, AIPerf's --sequence-distribution form:
// "ISL,OSL:WEIGHT;ISL,OSL:WEIGHT", e.g. "512,64:0.7;2048,256:0.3". Each
// request draws a component by weight, then its lengths around that
// component's means with random_range_ratio.
const ParamRandomMix = "random_mix"

// component is one (input, output) pair of a mixture with its share.
type component struct {
	in, out int
	cum     float64 // cumulative share, the last is 1
}

// parseMix parses a ParamRandomMix value.
func parseMix(s string) ([]component, error) {
	var out []component
	total := 0.0
	for i, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lengths, weight, ok := strings.Cut(part, ":")
		inS, outS, ok2 := strings.Cut(lengths, ",")
		in, err1 := strconv.Atoi(strings.TrimSpace(inS))
		o, err2 := strconv.Atoi(strings.TrimSpace(outS))
		w, err3 := strconv.ParseFloat(strings.TrimSpace(weight), 64)
		if !ok || !ok2 || err1 != nil || err2 != nil || err3 != nil || in < 1 || o < 1 || !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("datasets: random: %s: component %d %q: want ISL,OSL:WEIGHT with lengths >= 1 and a weight > 0, e.g. 512,64:0.7", ParamRandomMix, i+1, part)
		}
		total += w
		out = append(out, component{in: in, out: o, cum: total})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("datasets: random: %s %q: want at least one ISL,OSL:WEIGHT", ParamRandomMix, s)
	}
	for i := range out {
		out[i].cum /= total
	}
	out[len(out)-1].cum = 1
	return out, nil
}

// pick draws a component by weight.
func pick(mix []component, r *rand.Rand) component {
	u := r.Float64()
	for _, c := range mix {
		if u < c.cum {
			return c
		}
	}
	return mix[len(mix)-1]
}
