package runner

import (
	"context"
	"fmt"

	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// ExpandGenerator returns w with the cases its generator (Workload.Generator:
// the workload file's "generator" object or the CLI's --dataset-name)
// makes appended after its written cases, each tagged with the
// generator's name and carrying what it was built to have
// (Case.Requested); w itself when it has no generator. Spec fields the
// generator fills (its parameters with their defaults, the number of
// prompts, the token counting) are written back to the copy's Generator,
// which the payload records. Errors name the workload file and the
// generator parameter; a malformed dataset file's names its file, line
// and field.
//
// A timed generator (a trace: its requests carry Arrival) is not
// expanded: w is returned as is, for a load run to stream it at the
// trace's times.
//
// A workload already expanded (one of its cases carries Requested) is
// returned as is, so the doors may expand before Start does.
//
// The cases are held in memory (a record per request is too); a load run
// of generated cases sends them in order (RunLoad cycles through them).
//
// The prompts are counted by words (datasets.NewPrompter); Runner.Start
// rebuilds them with a Prompter calibrated on the server (Calibrate).
func ExpandGenerator(w *workloads.Workload) (*workloads.Workload, error) {
	return expandWith(w, nil)
}

// expandWith is ExpandGenerator with prompts built by p (nil: by words).
func expandWith(w *workloads.Workload, p *datasets.Prompter) (*workloads.Workload, error) {
	if w == nil || w.Generator == nil || w.Generator.Name == "" || expanded(w) || IsTrace(w) {
		return w, nil // a trace is streamed at its times (Session.trace), never expanded
	}
	spec := *w.Generator
	g, err := datasets.New(datasets.Options{Name: spec.Name, Path: spec.Path, NumPrompts: spec.NumPrompts,
		Seed: spec.Seed, Params: spec.Params, Prompter: p})
	if err != nil {
		return nil, fmt.Errorf("runner: %s: generator: %w", w.Path, err)
	}
	if timed(g) {
		return w, nil // a trace: a load run streams it at its times (Load.Trace), never held as cases
	}
	gs := g.Spec()
	spec.Params, spec.NumPrompts, spec.TokenCounting = gs.Params, gs.NumPrompts, string(gs.Counting)
	out := *w
	out.Generator = &spec
	out.Cases = append([]workloads.Case(nil), w.Cases...)
	ids := map[string]bool{}
	for _, c := range w.Cases {
		ids[c.ID] = true
	}
	control := datasets.OutputControl{IgnoreEOS: spec.IgnoreEOS, MinTokens: spec.MinTokens}
	for r, err := range g.Requests() {
		if err != nil {
			return nil, fmt.Errorf("runner: %s: generator %s: %w", w.Path, spec.Name, err)
		}
		if ids[r.ID] {
			return nil, fmt.Errorf("runner: %s: generator %s: case id %q is also a written case's; rename the written case", w.Path, spec.Name, r.ID)
		}
		c := r.Case(len(out.Cases), control, spec.Name)
		c.Requested = &results.Requested{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
			Group: r.Group, PrefixTokens: r.PrefixTokens}
		out.Cases = append(out.Cases, c)
	}
	if len(out.Cases) == 0 {
		return nil, fmt.Errorf("runner: %s: generator %s made no request (an empty dataset file?)", w.Path, spec.Name)
	}
	return &out, nil
}

// expanded reports whether w's generated cases are already among its
// cases (only a generated case carries Requested).
func expanded(w *workloads.Workload) bool {
	for _, c := range w.Cases {
		if c.Requested != nil {
			return true
		}
	}
	return false
}

// checkContext refuses a generated workload whose longest request
// (requested input plus asked output tokens) exceeds the context length
// the server's /v1/models gives for the model, before anything is sent:
// every such request would fail. A server that does not say passes; the
// first request's HTTP 400 then says it.
func (r *Runner) checkContext(ctx context.Context, w *workloads.Workload) error {
	longest, id := 0, ""
	for _, c := range w.Cases {
		if q := c.Requested; q != nil && q.InputTokens+q.OutputTokens > longest {
			longest, id = q.InputTokens+q.OutputTokens, c.ID
		}
	}
	if longest == 0 {
		return nil
	}
	n, ok := r.prober.ContextLength(ctx, r.model)
	if !ok || longest <= n {
		return nil
	}
	return fmt.Errorf("runner: %s: case %q asks for %d tokens (input + output) but %s serves at most %d (max_model_len in /v1/models): lower the lengths or serve a longer context", w.Path, id, longest, r.model, n)
}

// timed reports whether g's first request carries a trace's arrival time.
func timed(g datasets.Generator) bool {
	for r, err := range g.Requests() {
		return err == nil && r.Timed
	}
	return false
}
