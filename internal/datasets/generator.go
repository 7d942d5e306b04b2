package datasets

import (
	"errors"
	"fmt"
	"iter"
	"sort"
	"sync"
	"time"

	"github.com/benchserve/benchserve/internal/tokens"
	"github.com/benchserve/benchserve/results"
)

// Request is one generated request: the chat history to send and the
// lengths it was built to have.
type Request struct {
	// ID is the request's stable id ("random-0", "sharegpt-3.1"): a
	// case id, so a subtest name, never shifting between runs.
	ID string
	// Messages is the chat history sent, never empty.
	Messages []results.Message
	// InputTokens is the requested input length in tokens, as the
	// generator's counting counted it: for random and prefix_repetition
	// the whole prompt, the chat template's overhead included when the
	// Prompter is calibrated (what usage.prompt_tokens should say); for
	// the other generators the messages' text alone (no chat template);
	// 0 when unknown (a conversation file counted by nobody).
	InputTokens int
	// OutputTokens is the asked output length, sent as max_tokens (and
	// min_tokens / ignore_eos per OutputControl); 0 means the workload's
	// default max_tokens.
	OutputTokens int
	// Group is the prefix group or conversation the request belongs to
	// ("" for none): requests of one group share a prefix by
	// construction.
	Group string
	// Turn is the request's 0-based turn within its conversation (0 for
	// a single-turn request).
	Turn int
	// PrefixTokens is how many leading prompt tokens the request shares,
	// by construction, with an earlier request of its Group: the cached
	// tokens a prefix cache should report (0 for the group's first
	// request, or when nothing is shared).
	PrefixTokens int
	// Arrival is the request's send offset from the start of the run,
	// for a timed trace; meaningful only when Timed.
	Arrival time.Duration
	// Timed says Arrival holds the trace's time for this request; the
	// load schedule then follows the trace instead of drawing arrivals.
	Timed bool
}

// Generator is a named, deterministic, streamed source of requests.
// Implementations are safe to call Requests on from several goroutines;
// each returned sequence is used by one goroutine.
type Generator interface {
	// Spec names the generator, its parameters and seed: what the
	// payload records so a run can be reproduced.
	Spec() Spec
	// Requests streams the requests in order. Each call starts the
	// sequence anew and yields the same requests (same seed, same file).
	// The sequence ends after Spec().NumPrompts requests (when > 0), at
	// the end of the input, or at the first error, yielded with a zero
	// Request; a malformed input's error names the file, the line and
	// the field.
	Requests() iter.Seq2[Request, error]
}

// Spec is a generator's recorded description.
type Spec struct {
	// Name is the generator's name, as --dataset-name takes it
	// ("random", "prefix_repetition", "sharegpt", "jsonl", ...).
	Name string `json:"name"`
	// Path is the input file (--dataset-path), "" for a synthetic one.
	Path string `json:"path,omitempty"`
	// Seed is the seed the requests were drawn with (--seed).
	Seed uint64 `json:"seed"`
	// NumPrompts is the number of requests (--num-prompts); 0: as many
	// as the input holds.
	NumPrompts int `json:"num_prompts"`
	// Params are the generator's own parameters under vLLM's flag names
	// with underscores ("random_input_len": 512, ...), defaults filled.
	Params map[string]any `json:"params,omitempty"`
	// Counting says how InputTokens were counted.
	Counting tokens.Method `json:"token_counting"`
}

// Options build a generator: from the CLI's flags or the workload file's
// "generator" object.
type Options struct {
	// Name selects the generator (Register).
	Name string
	// Path is the input file, for a file-based generator.
	Path string
	// NumPrompts is how many requests to generate; 0: the generator's
	// default (the whole file; synthetic generators require it).
	NumPrompts int
	// Seed seeds every random draw.
	Seed uint64
	// Params are the generator's parameters under vLLM's flag names with
	// underscores; read them with Int, Float, Bool and String, which name
	// the field in their errors. An unknown key is an error (Check).
	Params map[string]any
	// Prompter builds the prompt texts; nil means NewPrompter().
	Prompter *Prompter
	// Counter counts the tokens of texts not built by the Prompter (a
	// conversation file's, for length filters and InputTokens); nil
	// means tokens.Words.
	Counter tokens.Counter
}

// Factory builds a generator from options. It reports bad options
// before anything is generated, naming the parameter.
type Factory func(Options) (Generator, error)

var (
	registryMu sync.Mutex
	registry   = map[string]Factory{}
)

// Register makes a generator available under name to New, the CLI's
// --dataset-name and the workload file. It is meant for init functions
// and panics when name is empty or taken.
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if name == "" || f == nil {
		panic("datasets: register: empty name or nil factory")
	}
	if _, dup := registry[name]; dup {
		panic("datasets: register: duplicate generator " + name)
	}
	registry[name] = f
}

// ErrUnknown is returned (wrapped) by New for a name nobody registered.
var ErrUnknown = errors.New("unknown dataset name")

// New builds the generator o.Name names.
func New(o Options) (Generator, error) {
	registryMu.Lock()
	f, ok := registry[o.Name]
	registryMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("datasets: %w %q (want one of %v)", ErrUnknown, o.Name, Names())
	}
	if o.Prompter == nil {
		o.Prompter = NewPrompter()
	}
	if o.Counter == nil {
		o.Counter = tokens.Words{}
	}
	if o.NumPrompts < 0 {
		return nil, fmt.Errorf("datasets: %s: num_prompts %d: want >= 0", o.Name, o.NumPrompts)
	}
	return f(o)
}

// Names returns the registered generator names, sorted.
func Names() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Collect returns the first max requests of g (all of them when max <= 0):
// for the sequential doors, which send a workload's cases one by one. A
// load run streams instead (iter.Pull2 on Requests).
func Collect(g Generator, max int) ([]Request, error) {
	var out []Request
	for r, err := range g.Requests() {
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		if max > 0 && len(out) == max {
			break
		}
	}
	return out, nil
}
