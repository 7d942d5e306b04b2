package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// RunOptions shape a whole workload run. The zero value runs every case
// once, sequentially, with the workload's cache policy.
type RunOptions struct {
	// Repetitions is how many times every case runs; 0 means 1.
	Repetitions int
	// Concurrency is how many requests are in flight at once (a closed
	// loop over the jobs, in the reference's order); 0 means 1.
	Concurrency int
	// CachePolicy overrides the workload's cache_policy ("" keeps it):
	// preserve, before-run or before-case.
	CachePolicy string
	// Tags keeps only cases having any of these tags; nil keeps all.
	Tags []string
	// SLOs are run-level thresholds, parsed at the door
	// (results.ParseThresholds), evaluated on the payload's records on top of
	// the workload's defaults.slo.
	SLOs []results.Threshold
	// Include, when set, is asked before a job of RunAll is sent; a job it
	// refuses sends no request and has no record (go test's -run/-skip).
	Include func(Job) bool
	// Progress, when set, is called after each job with its outcome and
	// the counts done/total. Calls are serialized.
	Progress func(out Outcome, done, total int)
	// Journal, when set, is the path of the run's journal
	// (resultio.JournalPath of the output): every record is appended to it
	// as one line before the next job is reported, so results already
	// measured survive any stop, even SIGKILL, at a constant cost per
	// record. The door calls FinishJournal after writing the output.
	Journal string
	// CacheReset, when set, is called after each cache reset the policy
	// made, with its event (see CacheResetNote for what to tell a user).
	CacheReset func(ev results.CacheEvent)
	// Sweep marks the run as a prompt sweep's (its requests are sent by
	// RunRound, its rows journaled with AppendSweepRow): the journal header
	// says so, so benchserve recover rebuilds rows.
	Sweep bool
	// Expected is the number of records the run is to make, for the
	// journal header, when they are not the session's jobs (a sweep); 0
	// means one per job.
	Expected int
}

// Job is one request of a run: case Case at repetition Rep (0-based).
type Job struct {
	Case workloads.Case
	Rep  int
	// Workload, when set, is the workload Case belongs to, named in its
	// record (a sweep's prompt set); nil means the session's.
	Workload *workloads.Workload
}

// Name is the job's stable subtest name: the case id, with "/rep=N" when
// the run has more than one repetition.
func (j Job) Name(reps int) string {
	if reps > 1 {
		return fmt.Sprintf("%s/rep=%d", j.Case.ID, j.Rep)
	}
	return j.Case.ID
}

// Session is one run of one workload on a Runner: the payload under
// construction and the jobs still to send. Create it with Start; it is
// safe for concurrent use by the goroutines executing its jobs.
type Session struct {
	r      *Runner
	w      *workloads.Workload
	opts   RunOptions
	reps   int
	policy string
	slos   []results.Threshold
	jobs   []Job

	mu      sync.Mutex
	payload *results.Payload
	done    int
	// progressMu serializes Progress calls.
	progressMu sync.Mutex
	// loadTotal is the request count of a RunLoad, the progress total.
	loadTotal int
	// shard is the shard index a sharded RunLoad stamps on its records.
	shard *int
	// noSideRequests: RunLoad sends only the chat requests (no /metrics
	// scrapes or status reads around each one).
	noSideRequests bool
	// journal is the run's journal (RunOptions.Journal), nil without one;
	// journalErr the first error appending to it.
	journal    *resultio.Journal
	journalErr error
	// version counts the changes to payload; cached is the payload with
	// its summary and verdicts at cachedVersion.
	version       int
	cachedVersion int
	cached        *results.Payload
	// trace is the workload's trace generator (IsTrace), which RunLoad
	// replays when its Load names none; nil otherwise.
	trace *Trace
}

// Start resolves the run (repetitions, cache policy, the selected cases,
// the SLO thresholds), applies a before-run cache reset and returns the
// session (reference: the preamble of run_bench_serve_workload). Errors
// name the workload file: no case with the tags, a bad cache policy or a
// threshold that does not parse.
func (r *Runner) Start(ctx context.Context, w *workloads.Workload, opts RunOptions) (*Session, error) {
	w, err := ExpandGenerator(w)
	if err != nil {
		return nil, err
	}
	if err := r.checkContext(ctx, w); err != nil {
		return nil, err // before the calibration's requests: the lengths are the same
	}
	if w, err = r.Calibrate(ctx, w); err != nil {
		return nil, err
	}
	reps := opts.Repetitions
	if reps == 0 {
		reps = 1
	}
	if reps < 0 {
		return nil, fmt.Errorf("runner: repetitions must be at least 1, got %d", reps)
	}
	if opts.Concurrency < 0 {
		return nil, fmt.Errorf("runner: concurrency must be at least 1, got %d", opts.Concurrency)
	}
	policy, err := ResolveCachePolicy(opts.CachePolicy, w)
	if err != nil {
		return nil, err
	}
	slos := append(append([]results.Threshold(nil), w.SLO...), opts.SLOs...)
	cases := w.Select(opts.Tags)
	tr, err := traceOf(w)
	if err != nil {
		return nil, err
	}
	if len(cases) == 0 && tr == nil {
		return nil, fmt.Errorf("runner: %s: no case has any of the tags %v", w.Path, opts.Tags)
	}
	s := &Session{r: r, w: w, opts: opts, reps: reps, policy: policy, slos: slos,
		payload: r.newPayload(w, reps, policy), trace: tr}
	// Repetition-major, as the reference: every case of repetition 0, then 1.
	for rep := range reps {
		for _, c := range cases {
			s.jobs = append(s.jobs, Job{Case: c, Rep: rep})
		}
	}
	if opts.Journal != "" {
		h := resultio.JournalHeaderFor(s.payload)
		h.Expected = len(s.jobs)
		if opts.Expected > 0 {
			h.Expected = opts.Expected
		}
		h.Sweep = opts.Sweep
		j, err := resultio.CreateJournal(opts.Journal, h)
		if err != nil {
			return nil, fmt.Errorf("runner: %w", err)
		}
		s.journal = j
	}
	if policy == "before-run" {
		s.addCacheEvent(results.CacheEvent{Scope: "before-run", Event: r.ClearCache(ctx)})
	}
	return s, nil
}

// addCacheEvent records a cache reset in the payload and the journal.
func (s *Session) addCacheEvent(ev results.CacheEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.payload.CachePolicy.Events = append(s.payload.CachePolicy.Events, ev)
	s.version++
	if s.journal != nil && s.journalErr == nil {
		s.journalErr = s.journal.AppendCacheEvent(ev)
	}
	if s.opts.CacheReset != nil {
		s.opts.CacheReset(ev)
	}
}

// Journal is the run's journal path ("" without one) and Displaced where
// an earlier run's journal found at that path was moved ("" when none):
// the door tells the user about both.
func (s *Session) Journal() (path, displaced string) {
	if s.journal == nil {
		return "", ""
	}
	return s.journal.Path(), s.journal.Displaced()
}

// FinishJournal ends the journal once the door has written the output:
// written true removes it (the output holds every record), false closes
// it and keeps it (it is then what remains of the run: benchserve recover
// turns it into a results file). It returns the first error met while
// appending to the journal, if any, so the door can say the journal may be
// incomplete.
func (s *Session) FinishJournal(written bool) error {
	if s.journal == nil {
		return nil
	}
	var err error
	if written {
		err = s.journal.Remove()
	} else {
		err = s.journal.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.journalErr, err)
}

// Jobs returns the run's jobs in the reference's order.
func (s *Session) Jobs() []Job { return s.jobs }

// Repetitions is the resolved repetition count.
func (s *Session) Repetitions() int { return s.reps }

// CachePolicy is the resolved cache policy.
func (s *Session) CachePolicy() string { return s.policy }

// SLOs are the run-level thresholds Payload evaluates (defaults.slo, then
// RunOptions.SLOs).
func (s *Session) SLOs() []results.Threshold { return s.slos }

// Execute sends one job: a before-case cache reset when the policy says
// so, then the case (RunCase); its record is added to the payload and
// Progress is called. It never fails: failures are in the outcome.
func (s *Session) Execute(ctx context.Context, j Job) Outcome {
	s.mu.Lock()
	side := !s.noSideRequests
	s.mu.Unlock()
	return s.execute(ctx, j, true, side)
}

// execute is the one place a request of a run is sent, judged (runCase)
// and, with record, recorded: added to the payload and the journal and
// reported to Progress. side says whether the per-request side requests
// (scrapes, status) are made around it. A request cut by the end of ctx
// is marked interrupted.
func (s *Session) execute(ctx context.Context, j Job, record, side bool) Outcome {
	var reset *results.CacheReset
	if s.policy == "before-case" {
		ev := s.r.ClearCache(ctx)
		reset = &ev
		id, rp := j.Case.ID, j.Rep
		s.addCacheEvent(results.CacheEvent{Scope: "before-case", CaseID: &id, Repetition: &rp, Event: ev})
	}
	w := s.w
	if j.Workload != nil {
		w = j.Workload
	}
	out := s.r.runCase(ctx, w, j.Case, j.Rep, reset, side)
	if ctx.Err() != nil && out.Record.Outcome.Failed() {
		// The run was stopped (Ctrl-C, the test's end) while this request
		// was in flight: not a measurement of the server.
		results.MarkInterrupted(&out.Record)
	}
	if !record {
		return out
	}
	// Progress runs outside mu (it may call Payload) but serialized, in
	// the order the records were added.
	s.progressMu.Lock()
	defer s.progressMu.Unlock()
	if s.noSideRequests {
		stampLoad(ctx, &out)
	}
	s.mu.Lock()
	if s.shard != nil {
		idx := *s.shard
		out.Record.Shard = &idx
	}
	s.payload.Results = append(s.payload.Results, out.Record)
	s.version++
	if s.journal != nil && s.journalErr == nil {
		s.journalErr = s.journal.Append(out.Record)
	}
	s.done++
	done, total := s.done, len(s.jobs)
	if s.loadTotal > 0 {
		total = s.loadTotal
	}
	s.mu.Unlock()
	if s.opts.Progress != nil {
		s.opts.Progress(out, done, total)
	}
	return out
}

// RunAll sends every job that RunOptions.Include accepts, at most
// RunOptions.Concurrency at a time, and calls each (when non-nil) with
// every job's outcome (ok false for a job Include refused) in job order as
// outcomes become available. It stops sending when ctx ends and returns
// ctx's error then; the jobs already sent finish and are recorded.
func (s *Session) RunAll(ctx context.Context, each func(j Job, out Outcome, ok bool)) error {
	if s.trace != nil && len(s.jobs) == 0 {
		return fmt.Errorf("runner: %s: a %s generator is streamed as load (RunLoad: a trace at its times, sessions turn by turn), not case by case", s.w.Path, s.trace.Generator.Spec().Name)
	}
	conc := max(s.opts.Concurrency, 1)
	type slot struct {
		out  Outcome
		sent bool
		done chan struct{}
	}
	slots := make([]*slot, len(s.jobs))
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	var stopped error
	for i, j := range s.jobs {
		sl := &slot{done: make(chan struct{})}
		slots[i] = sl
		if s.opts.Include != nil && !s.opts.Include(j) {
			close(sl.done)
			continue
		}
		if conc == 1 {
			// Sequential: run inline, so the order of the requests is the
			// reference's and nothing is in flight between jobs.
			if err := ctx.Err(); err != nil {
				stopped = err
				close(sl.done)
				continue
			}
			sl.out, sl.sent = s.Execute(ctx, j), true
			close(sl.done)
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			stopped = ctx.Err()
			close(sl.done)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sl.out, sl.sent = s.Execute(ctx, j), true
			close(sl.done)
		}()
	}
	for i, sl := range slots {
		<-sl.done
		if each != nil {
			each(s.jobs[i], sl.out, sl.sent)
		}
	}
	wg.Wait()
	if stopped != nil {
		return fmt.Errorf("runner: run stopped after %d of %d cases: %w", s.Done(), len(s.jobs), stopped)
	}
	return nil
}

// Done is the number of jobs executed so far.
func (s *Session) Done() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// Payload returns a copy of the payload so far with its summary computed
// and the run-level SLOs evaluated on its records. It can be called at any
// time, e.g. to write what was measured before a stop; the summary and the
// verdicts are computed once per change of the records, not per call.
func (s *Session) Payload() *results.Payload {
	return s.verdicts()
}

// Outcomes are the run-level SLO outcomes on p's records (the same
// samples as the payload summary: see summary.Payload), in the order
// of SLOs: the verdicts recorded in p.SLO by Payload.
func (s *Session) Outcomes(p *results.Payload) []results.SLOResult {
	return summary.Evaluate(summary.Payload(p), s.slos)
}

// verdicts returns a copy of the payload with its summary and SLO block,
// recomputing them only when a record, a cache event or the schedule was
// added since the last call.
func (s *Session) verdicts() *results.Payload {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached == nil || s.cachedVersion != s.version {
		p := *s.payload
		p.CachePolicy.Events = append([]results.CacheEvent(nil), s.payload.CachePolicy.Events...)
		p.Results = append([]results.Record(nil), s.payload.Results...)
		p.Summary = results.Summarize(p.Results)
		if len(s.slos) > 0 {
			summary.EvaluatePayload(&p, s.slos)
		}
		s.cached, s.cachedVersion = &p, s.version
	}
	p := *s.cached
	p.CachePolicy.Events = append([]results.CacheEvent(nil), s.cached.CachePolicy.Events...)
	p.Results = append([]results.Record(nil), s.cached.Results...)
	p.SLO = append([]results.SLOResult(nil), s.cached.SLO...)
	return &p
}

// Run runs every selected case of w (Start, RunAll, Payload) and returns
// the payload with its summary and SLO outcomes (reference:
// run_bench_serve_workload). When ctx ends the payload holds what was
// measured so far together with the error.
func (r *Runner) Run(ctx context.Context, w *workloads.Workload, opts RunOptions) (*results.Payload, error) {
	s, err := r.Start(ctx, w, opts)
	if err != nil {
		return nil, err
	}
	runErr := s.RunAll(ctx, nil)
	return s.Payload(), runErr
}

// ResolveCachePolicy returns the normalized policy: override if set, else
// the workload's, else "preserve".
func ResolveCachePolicy(override string, w *workloads.Workload) (string, error) {
	v := override
	if v == "" && w != nil {
		v = string(w.CachePolicy)
	}
	p, err := workloads.NormalizeCachePolicy(v)
	if err != nil {
		return "", fmt.Errorf("runner: %w", err)
	}
	return string(p), nil
}

// newPayload returns the empty payload of a run of w (resultio.BuildPayload,
// the one payload builder: the reference's fixed notes, the workload block,
// the transport timeout); the session fills its records.
func (r *Runner) newPayload(w *workloads.Workload, reps int, cachePolicy string) *results.Payload {
	var timeout *float64
	if t := r.cfg.requestTimeout(); t > 0 {
		s := t.Seconds()
		timeout = &s
	}
	return resultio.BuildPayload(resultio.PayloadInput{
		RunID:     r.runID,
		Timestamp: r.stamp,
		Workload: results.WorkloadInfo{
			Name:         w.Name,
			Description:  w.Description,
			Path:         workloads.PayloadPath(w.Path), // as given, ~ expanded (reference: str(Path(p).expanduser()))
			Defaults:     w.Defaults,
			DefaultsJSON: w.DefaultsJSON,
			Repetitions:  reps,
			Digest:       w.Digest(),
			Generator:    w.Generator,
		},
		RequestTimeoutS: timeout,
		CacheMode:       cachePolicy,
	})
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

// cacheResetMessage is the server's message in a refused reset's answer
// (openai.ErrorMessageOf, the one reader; the text of a non-JSON body),
// at most 200 bytes, cut on a code point boundary.
func cacheResetMessage(resp map[string]any) string {
	msg := openai.ErrorMessageOf(resp)
	if msg == "" {
		msg, _ = resp["text"].(string)
	}
	return openai.Truncate(strings.TrimSpace(msg), 200)
}
