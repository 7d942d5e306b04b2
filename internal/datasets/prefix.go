package datasets

import (
	"fmt"
	"iter"

	"github.com/benchserve/benchserve/results"
)

// The prefix_repetition generator's parameters (vLLM's
// --prefix-repetition-* flags).
const (
	ParamPrefixLen   = "prefix_repetition_prefix_len"
	ParamSuffixLen   = "prefix_repetition_suffix_len"
	ParamNumPrefixes = "prefix_repetition_num_prefixes"
	ParamOutputLen   = "prefix_repetition_output_len"
)

// prefixRepetition is the "prefix_repetition" generator: G groups each
// sharing a prefix of P tokens, every request adding its own suffix of S
// tokens (vLLM's PrefixRepetitionRandomDataset; SGLang's
// generated-shared-prefix).
type prefixRepetition struct {
	spec                Spec
	p                   *Prompter
	prefix, suffix, out int
	groups, requests    int
}

func newPrefixRepetition(o Options) (Generator, error) {
	if err := o.Check(ParamPrefixLen, ParamSuffixLen, ParamNumPrefixes, ParamOutputLen); err != nil {
		return nil, err
	}
	if err := o.CheckNoPath(); err != nil {
		return nil, err
	}
	var vals [4]int
	for i, p := range []struct {
		key      string
		def, min int
	}{{ParamPrefixLen, 256, 1}, {ParamSuffixLen, 256, 1}, {ParamNumPrefixes, 10, 1}, {ParamOutputLen, 128, 1}} {
		v, err := o.Int(p.key, p.def)
		if err != nil {
			return nil, err
		}
		if v < p.min {
			return nil, fmt.Errorf("datasets: prefix_repetition: %s %d: want >= %d", p.key, v, p.min)
		}
		vals[i] = v
	}
	if a := o.Prompter.Overhead(); vals[1] <= a {
		// The template's tokens come off the suffix, so the prefix stays
		// the shared length it is asked to be.
		return nil, fmt.Errorf("datasets: prefix_repetition: %s %d: the chat template takes %d tokens of every prompt on this server: want more than %d", ParamSuffixLen, vals[1], a, a)
	}
	n := o.NumPrompts
	if n == 0 {
		n = defaultNumPrompts
	}
	return &prefixRepetition{
		spec: Spec{Name: "prefix_repetition", Seed: o.Seed, NumPrompts: n, Counting: o.Prompter.Method(),
			Params: map[string]any{ParamPrefixLen: vals[0], ParamSuffixLen: vals[1], ParamNumPrefixes: vals[2], ParamOutputLen: vals[3]}},
		p: o.Prompter, prefix: vals[0], suffix: vals[1], groups: vals[2], out: vals[3], requests: n,
	}, nil
}

func (g *prefixRepetition) Spec() Spec { return g.spec }

// Requests yields request i in group i mod G (the groups interleave, as
// vLLM's shuffle does, so a group's prefix comes back while the others
// are in flight): the group's prefix, then a fresh suffix (less the chat
// template's overhead, Prompter.Overhead, so the prompt the server counts
// is prefix + suffix tokens). A group's
// first request shares nothing; each later one shares the whole prefix
// (PrefixTokens = prefix length). Only the G prefixes are held.
func (g *prefixRepetition) Requests() iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		r := newRand(g.spec.Seed)
		prefixes := make([]string, g.groups)
		for k := range prefixes {
			prefixes[k] = g.p.Text(r, g.prefix)
		}
		for i := range g.requests {
			k := i % g.groups
			req := Request{
				ID:           fmt.Sprintf("prefix-%d", i),
				Messages:     []results.Message{{"role": "user", "content": Join(prefixes[k], g.p.Text(r, g.suffix-g.p.Overhead()))}},
				InputTokens:  g.prefix + g.suffix,
				OutputTokens: g.out,
				Group:        fmt.Sprintf("prefix-%d", k),
			}
			if i >= g.groups {
				req.PrefixTokens = g.prefix
			}
			if !yield(req, nil) {
				return
			}
		}
	}
}

func init() { Register("prefix_repetition", newPrefixRepetition) }
