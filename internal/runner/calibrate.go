package runner

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/tokens"
	"github.com/benchserve/benchserve/workloads"
)

// calibrating are the generators whose prompts a calibration makes exact
// with the chat template (their texts are written Overhead tokens
// shorter); the others keep counting their texts alone.
var calibrating = []string{"random", "prefix_repetition"}

// calibrationTimeout bounds a whole calibration (a few hundred small
// requests on a server without POST /tokenize).
const calibrationTimeout = 2 * time.Minute

// Calibrate returns w with its generated cases rebuilt by a Prompter
// calibrated on the server (tokens.Calibrator: POST /tokenize when it
// answers, else usage.prompt_tokens), so each prompt is the requested
// length as the server counts it, the template included; the payload's
// generator records the method, the template's tokens and the requests
// sent, and Config.Note gets one note with the calibration's numbers. w
// is returned as is without a calibrating generator (random,
// prefix_repetition), under Config.NoCalibration, or when already
// calibrated. A calibration that fails (a request fails, the server does
// not add up) is a warning (Config.Warn), and the prompts stay counted by
// words. The
// Runner calibrates once (its server and model are fixed): later calls,
// such as a capacity search's probes, reuse it. Start calls Calibrate; a
// door that picks cases before Start (BenchWorkload) calls it first.
func (r *Runner) Calibrate(ctx context.Context, w *workloads.Workload) (*workloads.Workload, error) {
	if r.cfg.NoCalibration || w == nil || w.Generator == nil || !slices.Contains(calibrating, w.Generator.Name) || w.Generator.TemplateTokens != nil {
		return w, nil
	}
	w, err := ExpandGenerator(w)
	if err != nil {
		return nil, err
	}
	cal := r.calibration(ctx, w)
	if cal == nil {
		return w, nil
	}
	base := *w
	base.Cases = slices.DeleteFunc(slices.Clone(w.Cases), func(c workloads.Case) bool { return c.Requested != nil })
	out, err := expandWith(&base, datasets.CalibratedPrompter(cal))
	if err != nil {
		return nil, err
	}
	overhead := cal.Overhead
	out.Generator.TemplateTokens, out.Generator.CalibrationRequests = &overhead, cal.Requests
	return out, nil
}

// calibration is the Runner's calibration, measured at the first call
// (nil when it failed, which the note says once).
func (r *Runner) calibration(ctx context.Context, w *workloads.Workload) *tokens.Calibration {
	r.calMu.Lock()
	defer r.calMu.Unlock()
	if r.calDone {
		return r.cal
	}
	r.calDone = true
	ctx, cancel := context.WithTimeout(ctx, calibrationTimeout)
	defer cancel()
	start := time.Now()
	ep := tokens.Endpoint{BaseURL: r.prober.BaseURL, APIKey: r.prober.APIKey, Model: r.model, HTTP: r.side}
	c := tokens.Calibrator{Prompt: &tokens.Usage{Endpoint: ep}}
	srv := &tokens.Server{Endpoint: ep}
	if _, err := srv.Count(ctx, "and"); err == nil {
		c.Text = srv
	}
	cal, err := c.Calibrate(ctx, datasets.CandidateWords())
	if err != nil {
		r.warn(fmt.Sprintf("%s: generator %s: prompts are counted by words, not as the server counts them: %v", w.Path, w.Generator.Name, err))
		return nil
	}
	lo, hi := cal.Words[0].Tokens, cal.Words[0].Tokens
	for _, w := range cal.Words {
		lo, hi = min(lo, w.Tokens), max(hi, w.Tokens)
	}
	r.note(fmt.Sprintf("generator %s: prompts calibrated on the server (%s): the chat template adds %d tokens; %d of %d words kept (%d to %d tokens each); %d requests in %v",
		w.Generator.Name, cal.Method, cal.Overhead, len(cal.Words), cal.Tried, lo, hi, cal.Requests, time.Since(start).Round(time.Millisecond)))
	r.cal = cal
	return cal
}
