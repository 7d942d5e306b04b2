package datasets

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"

	"github.com/benchserve/benchserve/results"
)

// drawStream is the PCG stream constant of a generator's draws, paired
// with the run's seed.
const drawStream = 0xbb67ae8584caa73b

// newRand returns a generator's source of draws for seed.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, drawStream)) }

// defaultNumPrompts is vLLM bench serve's --num-prompts default.
const defaultNumPrompts = 1000

// LengthRange is vLLM's rule for a random length: mean·(1 ± ratio),
// drawn uniformly among the whole numbers from floor(mean·(1−ratio)) to
// ceil(mean·(1+ratio)) (vllm benchmarks/datasets.py RandomDataset), never
// below 1.
type LengthRange struct {
	// Mean is the length in tokens (--random-input-len, ...).
	Mean int
	// Ratio is --random-range-ratio, in [0, 1).
	Ratio float64
}

// Bounds returns the lowest and highest length Draw can return.
func (l LengthRange) Bounds() (lo, hi int) {
	lo = int(math.Floor(float64(l.Mean) * (1 - l.Ratio)))
	hi = int(math.Ceil(float64(l.Mean) * (1 + l.Ratio)))
	return max(lo, 1), max(hi, 1)
}

// Draw draws one length with r.
func (l LengthRange) Draw(r *rand.Rand) int {
	lo, hi := l.Bounds()
	if lo == hi {
		return lo
	}
	return lo + r.IntN(hi-lo+1)
}

// random is the "random" generator: single-turn prompts of drawn lengths.
type random struct {
	spec     Spec
	p        *Prompter
	in, out  LengthRange
	prefix   int         // tokens of a prefix every prompt shares (--random-prefix-len)
	mix      []component // weighted (input, output) means, nil for one pair
	requests int
}

// The random generator's parameters (vLLM's flag names).
const (
	ParamRandomInputLen   = "random_input_len"
	ParamRandomOutputLen  = "random_output_len"
	ParamRandomRangeRatio = "random_range_ratio"
	ParamRandomPrefixLen  = "random_prefix_len"
)

func newRandom(o Options) (Generator, error) {
	if err := o.Check(ParamRandomInputLen, ParamRandomOutputLen, ParamRandomRangeRatio, ParamRandomPrefixLen, ParamRandomMix); err != nil {
		return nil, err
	}
	if err := o.CheckNoPath(); err != nil {
		return nil, err
	}
	in, err := o.Int(ParamRandomInputLen, 1024)
	if err != nil {
		return nil, err
	}
	out, err := o.Int(ParamRandomOutputLen, 128)
	if err != nil {
		return nil, err
	}
	ratio, err := o.Float(ParamRandomRangeRatio, 0)
	if err != nil {
		return nil, err
	}
	prefix, err := o.Int(ParamRandomPrefixLen, 0)
	if err != nil {
		return nil, err
	}
	switch {
	case in < 1:
		return nil, fmt.Errorf("datasets: random: %s %d: want >= 1 token", ParamRandomInputLen, in)
	case out < 1:
		return nil, fmt.Errorf("datasets: random: %s %d: want >= 1 token", ParamRandomOutputLen, out)
	case ratio < 0 || ratio >= 1:
		return nil, fmt.Errorf("datasets: random: %s %v: want 0 <= ratio < 1 (vLLM's range)", ParamRandomRangeRatio, ratio)
	case prefix < 0:
		return nil, fmt.Errorf("datasets: random: %s %d: want >= 0 tokens", ParamRandomPrefixLen, prefix)
	}
	mixText, err := o.String(ParamRandomMix, "")
	if err != nil {
		return nil, err
	}
	var mix []component
	if mixText != "" {
		if mix, err = parseMix(mixText); err != nil {
			return nil, err
		}
	}
	if err := checkOverhead(o.Prompter, ratio, in, mix); err != nil {
		return nil, err
	}
	n := o.NumPrompts
	if n == 0 {
		n = defaultNumPrompts
	}
	g := &random{
		spec: Spec{Name: "random", Seed: o.Seed, NumPrompts: n, Counting: o.Prompter.Method(),
			Params: map[string]any{ParamRandomInputLen: in, ParamRandomOutputLen: out,
				ParamRandomRangeRatio: ratio, ParamRandomPrefixLen: prefix}},
		p: o.Prompter, in: LengthRange{in, ratio}, out: LengthRange{out, ratio},
		prefix: prefix, requests: n, mix: mix,
	}
	if mixText != "" {
		g.spec.Params[ParamRandomMix] = mixText
	}
	return g, nil
}

func (g *random) Spec() Spec { return g.spec }

// Requests yields NumPrompts prompts: the shared prefix (when
// random_prefix_len > 0) then a random text of the drawn input length
// less the chat template's overhead (Prompter.Overhead), so the prompt
// the server counts has the drawn length; the input length counts the
// prefix too, as vLLM's does.
func (g *random) Requests() iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		r := newRand(g.spec.Seed)
		prefix := g.p.Text(r, g.prefix)
		for i := range g.requests {
			inR, outR := g.in, g.out
			if g.mix != nil {
				c := pick(g.mix, r)
				inR, outR = LengthRange{c.in, g.in.Ratio}, LengthRange{c.out, g.out.Ratio}
			}
			in, out := inR.Draw(r), outR.Draw(r)
			req := Request{
				ID:           fmt.Sprintf("random-%d", i),
				Messages:     []results.Message{{"role": "user", "content": Join(prefix, g.p.Text(r, in-g.p.Overhead()))}},
				InputTokens:  g.prefix + in,
				OutputTokens: out,
			}
			if g.prefix > 0 {
				req.Group = "random-prefix"
				if i > 0 {
					req.PrefixTokens = g.prefix
				}
			}
			if !yield(req, nil) {
				return
			}
		}
	}
}

// checkOverhead refuses input lengths a prompt cannot have on p's server:
// the shortest drawn length (of each mixture component) must exceed the
// chat template's overhead, which every prompt carries.
func checkOverhead(p *Prompter, ratio float64, in int, mix []component) error {
	means := []int{in}
	for _, c := range mix {
		means = append(means, c.in)
	}
	for _, m := range means {
		if lo, _ := (LengthRange{m, ratio}).Bounds(); lo <= p.Overhead() {
			return fmt.Errorf("datasets: random: %s %d (%d at the range's low end): the chat template takes %d tokens of every prompt on this server: want more than %d",
				ParamRandomInputLen, m, lo, p.Overhead(), p.Overhead())
		}
	}
	return nil
}

func init() { Register("random", newRandom) }
