package cli

import (
	"flag"
	"strings"

	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// datasetFlags are vLLM bench serve's dataset flags (--dataset-name and
// the generators' own), which make the request mix from a generator
// instead of a workload's written cases (issue 27).
type datasetFlags struct {
	fs        *flag.FlagSet
	name      string
	path      string
	ignoreEOS bool
	// noCalibration is --no-calibration: prompts counted by words.
	noCalibration bool
	// ints and floats are the generator parameters, by flag name; only
	// the given ones reach the generator (its defaults are vLLM's).
	ints   map[string]*int
	floats map[string]*float64
	mix    string
}

// datasetIntFlags and datasetFloatFlags are the generator parameter flags
// with their usage; the parameter is the flag name with underscores.
var (
	datasetIntFlags = [][2]string{
		{"random-input-len", "random: input `tokens` per request (default 1024)"},
		{"random-output-len", "random: output `tokens` per request, sent as max_tokens (default 128)"},
		{"random-prefix-len", "random: `tokens` of a prefix every prompt shares (default 0)"},
		{"prefix-repetition-prefix-len", "prefix_repetition: `tokens` of each group's shared prefix (default 256)"},
		{"prefix-repetition-suffix-len", "prefix_repetition: `tokens` of each request's own suffix (default 256)"},
		{"prefix-repetition-num-prefixes", "prefix_repetition: `number` of groups, each with its prefix (default 10)"},
		{"prefix-repetition-output-len", "prefix_repetition: output `tokens` per request (default 128)"},
	}
	datasetFloatFlags = [][2]string{
		{"random-range-ratio", "random: lengths drawn uniformly in len·(1 ± `ratio`), 0 <= ratio < 1 (default 0)"},
	}
)

func addDatasetFlags(fs *flag.FlagSet, d *datasetFlags) {
	d.fs = fs
	d.ints, d.floats = map[string]*int{}, map[string]*float64{}
	fs.StringVar(&d.name, "dataset-name", "", "Generate the requests instead of reading cases: `NAME` is "+strings.Join(datasets.Names(), ", ")+"\n(vLLM's names; --num-prompts requests, drawn with --seed: the same seed sends\nbyte-identical requests). random and prefix_repetition prompts are first calibrated\non the server (its POST /tokenize, else usage.prompt_tokens), so a length in tokens is\nthe server's prompt_tokens, chat template included")
	fs.StringVar(&d.path, "dataset-path", "", "`File` a file-based --dataset-name reads")
	fs.StringVar(&d.mix, "random-mix", "", "random: a weighted mixture of (input, output) lengths, `ISL,OSL:W;...` (AIPerf's\n--sequence-distribution form), e.g. 512,64:0.7;2048,256:0.3; each pair drawn by weight,\nits lengths with --random-range-ratio. benchserve addition")
	fs.BoolVar(&d.noCalibration, "no-calibration", false, "Build random and prefix_repetition prompts of single-token words without\ncalibrating them on the server first (token_counting \"words\": exact for\no200k_base/cl100k_base and the fixture, not for other vocabularies). benchserve addition")
	fs.BoolVar(&d.ignoreEOS, "ignore-eos", false, "Send \"ignore_eos\": true so the server generates the asked output length\n(vLLM, SGLang, llama.cpp; Ollama ignores it)")
	for _, fl := range datasetIntFlags {
		v := new(int)
		d.ints[fl[0]] = v
		fs.IntVar(v, fl[0], 0, fl[1])
	}
	for _, fl := range datasetFloatFlags {
		v := new(float64)
		d.floats[fl[0]] = v
		fs.Float64Var(v, fl[0], 0, fl[1])
	}
}

func (d *datasetFlags) given(name string) bool {
	found := false
	d.fs.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

// set reports whether a dataset run was asked for.
func (d *datasetFlags) set() bool { return d.name != "" }

// generator returns the workload generator the flags describe, adding
// every problem to pr: a generator flag given without --dataset-name, an
// unknown name, a bad parameter (built once here, so the error comes
// before anything is sent).
func (d *datasetFlags) generator(pr *problems, numPrompts int, seed uint64) *results.Generator {
	if !d.set() {
		d.fs.Visit(func(fl *flag.Flag) {
			if strings.HasPrefix(fl.Name, "random-") || strings.HasPrefix(fl.Name, "prefix-repetition-") || strings.HasPrefix(fl.Name, "sessions-") || fl.Name == "dataset-path" || fl.Name == "ignore-eos" || fl.Name == "no-calibration" {
				pr.addUsage("--%s needs --dataset-name", fl.Name)
			}
		})
		return nil
	}
	g := &results.Generator{Name: d.name, Path: d.path, NumPrompts: numPrompts, Seed: seed,
		IgnoreEOS: d.ignoreEOS, Params: map[string]any{}}
	for name, v := range d.ints {
		if d.given(name) {
			g.Params[strings.ReplaceAll(name, "-", "_")] = *v
		}
	}
	for name, v := range d.floats {
		if d.given(name) {
			g.Params[strings.ReplaceAll(name, "-", "_")] = *v
		}
	}
	if d.given("random-mix") {
		g.Params["random_mix"] = d.mix
	}
	_, err := datasets.New(datasets.Options{Name: g.Name, Path: g.Path, NumPrompts: g.NumPrompts, Seed: g.Seed, Params: g.Params})
	if err != nil {
		pr.addUsage("--dataset-name %s: %s", d.name, flagWords(strings.TrimPrefix(err.Error(), "datasets: ")))
		return nil
	}
	return g
}

// flagWords names parameters as the flags that set them.
func flagWords(s string) string {
	for _, fl := range datasetIntFlags {
		s = strings.ReplaceAll(s, strings.ReplaceAll(fl[0], "-", "_"), "--"+fl[0])
	}
	s = strings.ReplaceAll(s, "random_mix", "--random-mix")
	for _, fl := range datasetFloatFlags {
		s = strings.ReplaceAll(s, strings.ReplaceAll(fl[0], "-", "_"), "--"+fl[0])
	}
	return s
}

// datasetWorkload is the workload of a --dataset-name run: base (a
// --workload's, whose written cases go first) or an empty one named after
// the generator, with g's cases (runner.ExpandGenerator).
func datasetWorkload(pr *problems, base *workloads.Workload, g *results.Generator) *workloads.Workload {
	w := &workloads.Workload{Name: g.Name, Path: g.Name, Defaults: map[string]any{}, DefaultsJSON: []byte("{}")}
	if base != nil {
		if base.Generator != nil {
			pr.addUsage("--dataset-name: %s has a generator of its own; give one of them", base.Path)
			return nil
		}
		cp := *base
		w = &cp
	}
	w.Generator = g
	out, err := runner.ExpandGenerator(w)
	if err != nil {
		pr.addInput("%s", strings.TrimPrefix(err.Error(), "runner: "))
		return nil
	}
	return out
}

// datasetDefaultPrompts is --num-prompts' value for a generator run when it
// is not given: vLLM bench serve's default.
const datasetDefaultPrompts = 1000

// datasetPrompts is the generator's request count: --num-prompts, else
// vLLM's default (1000).
func (f *benchFlags) datasetPrompts() int {
	if f.load.numPrompts > 0 {
		return f.load.numPrompts
	}
	return datasetDefaultPrompts
}

// datasetMix is capacity's request mix from --dataset-name: the
// generator's cases (after a --workload's written ones), seeded by --seed.
func (f *capacityFlags) datasetMix(pr *problems) *workloads.Workload {
	if !f.dataset.set() {
		pr.addUsage("--num-prompts needs --dataset-name")
		return nil
	}
	if f.prompts != "" {
		pr.addUsage("give --prompts or --dataset-name, not both")
		return nil
	}
	var base *workloads.Workload
	if f.workload != "" {
		w, err := workloads.Load(f.workload)
		if err != nil {
			pr.addInput("%v", err)
			return nil
		}
		base = w
	}
	n := f.numPrompts
	if n == 0 {
		n = datasetDefaultPrompts
	} else if n < 0 {
		pr.addUsage("--num-prompts %d: want at least 1", n)
		return nil
	}
	g := f.dataset.generator(pr, n, f.seed)
	if g == nil {
		return nil
	}
	return datasetWorkload(pr, base, g)
}
