package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workload"
)

// RunOptions shape a whole workload run.
type RunOptions struct {
	// Repetitions is how many times every case runs; 0 means 1.
	Repetitions int
	// CachePolicy overrides the workload's cache_policy ("" keeps it):
	// preserve, before-run or before-case.
	CachePolicy string
	// Tags keeps only cases having any of these tags; nil keeps all.
	Tags []string
	// Progress, when set, is called after each case with the record and
	// the counts done/total.
	Progress func(rec results.Record, done, total int)
	// CacheReset, when set, is called after each cache reset the policy
	// made, with its event (see CacheResetNote for what to tell a user).
	CacheReset func(ev results.CacheEvent)
}

// Run runs every selected case of w, repetition-major as the reference
// does (all cases of repetition 0, then of 1, …), applying the cache
// policy, and returns the payload (reference: run_bench_serve_workload).
// Records are appended as they complete; when ctx is cancelled the payload
// holds what was measured so far together with ctx.Err().
func (r *Runner) Run(ctx context.Context, w *workload.Workload, opts RunOptions) (*results.Payload, error) {
	reps := opts.Repetitions
	if reps == 0 {
		reps = 1
	}
	if reps < 0 {
		return nil, fmt.Errorf("runner: repetitions must be at least 1, got %d", reps)
	}
	policy, err := ResolveCachePolicy(opts.CachePolicy, w)
	if err != nil {
		return nil, err
	}
	cases := w.Select(opts.Tags)
	if len(cases) == 0 {
		return nil, fmt.Errorf("runner: %s: no case has any of the tags %v", w.Path, opts.Tags)
	}
	p := r.NewPayload(w, reps, policy)
	if policy == "before-run" {
		ev := results.CacheEvent{Scope: "before-run", Event: r.ClearCache(ctx)}
		p.CachePolicy.Events = append(p.CachePolicy.Events, ev)
		if opts.CacheReset != nil {
			opts.CacheReset(ev)
		}
	}
	total := len(cases) * reps
	done := 0
	for rep := 0; rep < reps; rep++ {
		for _, c := range cases {
			if err := ctx.Err(); err != nil {
				r.Finish(p)
				return p, fmt.Errorf("runner: run stopped after %d of %d cases: %w", done, total, err)
			}
			var reset *results.CacheReset
			if policy == "before-case" {
				ev := r.ClearCache(ctx)
				reset = &ev
				id, rp := c.ID, rep
				cev := results.CacheEvent{Scope: "before-case", CaseID: &id, Repetition: &rp, Event: ev}
				p.CachePolicy.Events = append(p.CachePolicy.Events, cev)
				if opts.CacheReset != nil {
					opts.CacheReset(cev)
				}
			}
			out := r.RunCase(ctx, w, c, rep, reset)
			p.Results = append(p.Results, out.Record)
			done++
			if opts.Progress != nil {
				opts.Progress(out.Record, done, total)
			}
		}
	}
	r.Finish(p)
	return p, nil
}

// ResolveCachePolicy returns the normalized policy: override if set, else
// the workload's, else "preserve".
func ResolveCachePolicy(override string, w *workload.Workload) (string, error) {
	v := override
	if v == "" && w != nil {
		v = w.CachePolicy
	}
	p, err := workload.NormalizeCachePolicy(v)
	if err != nil {
		return "", fmt.Errorf("runner: %w", err)
	}
	return p, nil
}

// NewPayload returns an empty payload for a run of w with the reference's
// fixed notes; fill Results and call Finish.
func (r *Runner) NewPayload(w *workload.Workload, reps int, cachePolicy string) *results.Payload {
	path := w.Path
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	defaults := w.Defaults
	if defaults == nil {
		defaults = map[string]any{}
	}
	var timeout *float64
	if r.cfg.RequestTimeout > 0 {
		s := r.cfg.RequestTimeout.Seconds()
		timeout = &s
	}
	return &results.Payload{
		RunID:     r.runID,
		Timestamp: r.stamp,
		Workload: results.WorkloadInfo{
			Name:        w.Name,
			Description: w.Description,
			Path:        path,
			Defaults:    defaults,
			Repetitions: reps,
		},
		Transport: results.Transport{
			RequestTimeoutS: timeout,
			Note:            "transport safety only; product policy timeouts live in workload cases",
		},
		Policy:      results.PolicyNote{Note: "comparison-only unless your product contract explicitly requires it"},
		CachePolicy: results.CachePolicy{Mode: cachePolicy, Events: []results.CacheEvent{}},
		Results:     []results.Record{},
	}
}

// Finish computes the payload's summary from its results.
func (r *Runner) Finish(p *results.Payload) {
	p.Summary = results.Summarize(p.Results)
}

// CacheResetNote is what to tell a user about a cache reset made under
// scope ("before-run" or "before-case"): "" when none was attempted or it
// succeeded; otherwise that the server refused it (a server without
// DELETE /v1/cache answers 404; Ollama does, though it keeps a prefix
// cache) and that the run therefore measures with whatever the server
// has cached, as under "preserve". For example:
//
//	cache reset before-run refused: DELETE /v1/cache: HTTP 404 (404 page not found); the server's cache was not cleared, so "before-run" measured as "preserve"
func CacheResetNote(scope string, ev results.CacheReset) string {
	if !ev.Attempted || ev.OK != nil && *ev.OK {
		return ""
	}
	why := "no answer"
	if ev.Error != nil && *ev.Error != "" {
		why = *ev.Error
	}
	if msg := cacheResetMessage(ev.Response); msg != "" {
		why += " (" + msg + ")"
	}
	return fmt.Sprintf("cache reset %s refused: %s; the server's cache was not cleared, so %q measured as \"preserve\"", scope, why, scope)
}

// cacheResetMessage is the server's message in a refused reset's answer:
// error.message, error (a string), message or the text of a non-JSON
// body, cut to 200 bytes.
func cacheResetMessage(resp map[string]any) string {
	var msg string
	switch e := resp["error"].(type) {
	case map[string]any:
		msg, _ = e["message"].(string)
	case string:
		msg = e
	}
	if msg == "" {
		msg, _ = resp["message"].(string)
	}
	if msg == "" {
		msg, _ = resp["text"].(string)
	}
	msg = strings.TrimSpace(msg)
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}
