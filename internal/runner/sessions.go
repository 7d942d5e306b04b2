package runner

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// conversation is one session in flight: its user turns (pulled from the
// generator when the session starts), the history sent so far (user
// messages and the server's answers) and when its next turn may go.
type conversation struct {
	turns   []datasets.Request
	k       int // the next turn
	history []results.Message
	// historyTokens is the history's length in tokens: the earlier user
	// turns as built, the answers as the server counted them
	// (completion_tokens), else by their words.
	historyTokens int
	readyAt       time.Time
}

// errSessionsEnded is a sample's error when the generator has no session
// left for a request of the count (it ended early or failed).
var errSessionsEnded = errors.New("no session left to send")

// runSessions is RunLoad for a multi-turn generator (datasets.Conversations,
// given as l.Trace's generator): a closed loop of MaxConcurrency sessions
// at once (default: every session, at most loadgen.DefaultMaxInFlight),
// each sending its turns in order. A turn goes only after its previous
// answer arrived and the think time passed; its messages are the history
// (every earlier user turn and the server's real answer, the answer's
// content as it arrived, empty for a failed turn) then the turn's own user
// message, and its record's Requested.PrefixTokens is that history's
// length: the reuse a prefix cache should show. Sessions are pulled from
// the generator as they start, so only those in flight are held. The run
// sends every turn of every session (Requests does not apply); Duration
// ends it early.
func (s *Session) runSessions(ctx context.Context, l Load, g datasets.Conversations) (*loadgen.Run, error) {
	var errs []error
	if l.Rate != 0 && !math.IsInf(l.Rate, 1) {
		errs = append(errs, errors.New("sessions run as a closed loop of concurrent sessions: leave the request rate out and set the max concurrency"))
	}
	if l.Sample {
		errs = append(errs, errors.New("sessions send their turns in order: sampling does not apply"))
	}
	if l.Shard.Sharded() {
		errs = append(errs, errors.New("sessions are not sharded"))
	}
	if err := errors.Join(append([]error{l.Check()}, errs...)...); err != nil {
		return nil, fmt.Errorf("runner: load: %w", err)
	}
	spec := g.Spec()
	turns, think := g.Turns(), g.ThinkTime()
	if err := s.checkSessionContext(ctx, spec, turns); err != nil {
		return nil, err
	}
	n := spec.NumPrompts * turns
	conc := l.MaxConcurrency
	if conc == 0 {
		conc = min(spec.NumPrompts, loadgen.DefaultMaxInFlight)
	}
	conc = max(1, min(conc, spec.NumPrompts))
	pull, stop := iter.Pull2(g.Requests())
	defer stop()
	var (
		pullMu sync.Mutex
		genErr error
	)
	// start fills c with the generator's next session; false when none
	// is left.
	start := func(c *conversation) bool {
		pullMu.Lock()
		defer pullMu.Unlock()
		*c = conversation{}
		for range turns {
			r, err, ok := pull()
			if !ok || err != nil {
				if err != nil && genErr == nil {
					genErr = err
				}
				return false
			}
			c.turns = append(c.turns, r)
		}
		return true
	}
	slots := make(chan *conversation, conc)
	for range conc {
		slots <- &conversation{}
	}
	// take returns a slot with a turn to send, starting the generator's
	// next session in a slot whose session ended; a slot left without
	// one is dropped, and once every slot is, the run has no turn left.
	var (
		liveMu sync.Mutex
		live   = conc
		none   = make(chan struct{})
	)
	take := func() (*conversation, error) {
		for {
			var c *conversation
			select {
			case c = <-slots:
			case <-none:
				return nil, errSessionsEnded
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if c.k < len(c.turns) || start(c) {
				return c, nil
			}
			liveMu.Lock()
			if live--; live == 0 {
				close(none)
			}
			liveMu.Unlock()
		}
	}
	output := l.Trace.Output
	var began time.Time // the loop's start, for Duration
	s.mu.Lock()
	s.noSideRequests = true
	s.loadTotal = n
	s.payload.Workload.Generator = &results.Generator{Name: spec.Name, Path: spec.Path, Seed: spec.Seed,
		NumPrompts: spec.NumPrompts, Params: spec.Params, IgnoreEOS: output.IgnoreEOS,
		MinTokens: output.MinTokens, TokenCounting: string(spec.Counting)}
	if s.journal != nil && s.journalErr == nil {
		sc := l.settings(math.Inf(1), n)
		sc.InFlightCap = conc
		sc.StartedAt = resultio.ISOTimestamp(time.Now())
		s.journalErr = s.journal.AppendLoad(sc, nil, n)
	}
	s.mu.Unlock()
	fn := func(ctx context.Context, i int) loadgen.Sample {
		// As many slots as streams, each holding one session: only the
		// stream holding a slot sends its session's turn, so the turns of
		// a session go one after another.
		c, err := take()
		if err != nil {
			return loadgen.Sample{Err: err}
		}
		defer func() { slots <- c }()
		// The think time is waited out after the previous turn (below);
		// this catches a slot another stream took up before then.
		if c.k > 0 && !sleep(ctx, time.Until(c.readyAt)) {
			return loadgen.Sample{Err: ctx.Err()}
		}
		r := c.turns[c.k]
		r.Messages = append(append([]results.Message(nil), c.history...), r.Messages...)
		user := r.InputTokens
		r.PrefixTokens, r.InputTokens = c.historyTokens, c.historyTokens+user
		cs := r.Case(i, output, spec.Name)
		turn := r.Turn
		cs.Requested = &results.Requested{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
			Group: r.Group, PrefixTokens: r.PrefixTokens, Turn: &turn}
		out := s.Execute(ctx, Job{Case: cs})
		answer := ""
		if out.Result != nil {
			answer = out.Result.Content
		}
		answerTokens := out.Record.Metrics.CompletionTokens
		if answerTokens <= 0 {
			answerTokens = len(strings.Fields(answer))
		}
		c.history = append(r.Messages, results.Message{"role": "assistant", "content": answer})
		c.historyTokens += user + answerTokens
		c.k++
		c.readyAt = time.Now().Add(think)
		// Think here, holding the session, so the next turn's sample is
		// stamped when it is really sent; not after the last turn, nor
		// when the run's duration ends first.
		if c.k < len(c.turns) && (l.Duration == 0 || time.Since(began)+think < l.Duration) {
			sleep(ctx, think)
		}
		return SampleOf(out)
	}
	if l.Wrap != nil {
		fn = l.Wrap(fn)
	}
	if err := s.waitStart(ctx, l.StartAt); err != nil {
		return nil, err
	}
	began = time.Now()
	parent := ctx
	ctx, fn, es, cancel := l.errorStop(ctx, fn)
	defer cancel()
	run, err := loadgen.RunClosed(ctx, fn, loadgen.Closed{Concurrency: conc, Requests: n, Duration: l.Duration})
	if err != nil {
		return nil, fmt.Errorf("runner: load: %w", err)
	}
	st := summary.Run(run, summary.Options{Goodput: l.Goodput})
	sc := scheduleOf(l, math.Inf(1), n, run, st)
	s.mu.Lock()
	finishSchedule(sc, es, parent, s.payload.Results)
	s.payload.Schedule = sc
	s.version++
	s.mu.Unlock()
	pullMu.Lock()
	gerr := genErr
	pullMu.Unlock()
	if gerr != nil {
		return run, fmt.Errorf("runner: load: sessions stopped after %d requests: %w", len(run.Samples), gerr)
	}
	if err := parent.Err(); err != nil {
		return run, fmt.Errorf("runner: load run stopped after %d requests: %w", len(run.Samples), err)
	}
	return run, nil
}

// checkSessionContext refuses sessions whose last turn could exceed the
// context the server's /v1/models gives, before anything is sent: at
// most every turn's user message and asked answer, plus the last turn's
// answer (sessions_turns × (input + output) tokens). A server that does
// not say passes.
func (s *Session) checkSessionContext(ctx context.Context, spec datasets.Spec, turns int) error {
	in, _ := spec.Params[datasets.ParamSessionsInputLen].(int)
	out, _ := spec.Params[datasets.ParamSessionsOutputLen].(int)
	longest := turns * (in + out)
	if longest == 0 {
		return nil
	}
	n, ok := s.r.prober.ContextLength(ctx, s.r.model)
	if !ok || longest <= n {
		return nil
	}
	return fmt.Errorf("runner: load: sessions: the last of %d turns may ask for %d tokens (%s × (%s + %s)) but %s serves at most %d (max_model_len in /v1/models): fewer turns or shorter lengths",
		turns, longest, datasets.ParamSessionsTurns, datasets.ParamSessionsInputLen, datasets.ParamSessionsOutputLen, s.r.model, n)
}

// sleep waits d (nothing when d <= 0); false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
