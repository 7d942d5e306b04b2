package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/scrape"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/results"
)

// Round is one round of a session's requests measured as a whole, the
// unit of a prompt sweep's row and of a benchmark iteration (reference:
// run_concurrent_requests): the jobs are sent without per-request side
// requests, and the cache counters are scraped once before and once after
// the round, each within the side-request bound.
type Round struct {
	// Jobs are the round's requests; request i is Jobs[i].
	Jobs []Job
	// Concurrency caps the requests in flight: a closed round sends
	// min(Concurrency, len(Jobs)) at once, each worker sending its next job
	// when its previous one ended; an open round (Rate > 0) lets a request
	// due beyond the cap wait. 0 means len(Jobs).
	Concurrency int
	// Rate, when > 0, sends the jobs as an open loop at that many requests
	// per second (Poisson arrivals from Seed, loadgen.RunOpen).
	Rate float64
	// Seed fixes an open round's arrival schedule.
	Seed uint64
	// Warmup sends the round without recording it: its records are not in
	// the payload or the journal, Progress is not called, and no side
	// request is made.
	Warmup bool
	// NoScrape skips the round's /metrics scrapes (the counters are then
	// unavailable) and its /v1/status read.
	NoScrape bool
}

// RoundResult is what a Round measured.
type RoundResult struct {
	// Outcomes are the round's requests by job index; Sent[i] is false for
	// a job never sent (the run's context ended first), whose outcome is
	// the zero Outcome.
	Outcomes []Outcome
	Sent     []bool
	// Run is the load generator's view (samples with the same verdicts as
	// the records, duration, peak in flight).
	Run *loadgen.Run
	// CacheHits, CacheMisses and TokensSaved are the deltas of the
	// server's prefix-cache counters over the round, nil when unavailable.
	CacheHits, CacheMisses, TokensSaved *int64
	// Metal is the server's memory after the round (/v1/status), else the
	// runtime probe's.
	Metal results.Metal
}

// RunRound sends rd's jobs (see Round) through the one engine: each is
// sent, judged and (unless Warmup) recorded like Execute does. It returns
// an error only for a Round that cannot run (no jobs, a bad rate); a
// request's failure is in its outcome. When ctx ends the jobs not yet sent
// are left unsent and the ones in flight are recorded as interrupted.
func (s *Session) RunRound(ctx context.Context, rd Round) (RoundResult, error) {
	if len(rd.Jobs) == 0 {
		return RoundResult{}, errors.New("runner: round: no jobs")
	}
	conc := rd.Concurrency
	if conc <= 0 {
		conc = len(rd.Jobs)
	}
	res := RoundResult{Outcomes: make([]Outcome, len(rd.Jobs)), Sent: make([]bool, len(rd.Jobs))}
	side := !rd.Warmup && !rd.NoScrape
	limit := s.r.sideTimeout()
	var before, after scrape.Counters
	if side {
		before = s.r.scrapeWithin(ctx, limit)
	}
	fn := func(ctx context.Context, i int) loadgen.Sample {
		out := s.execute(ctx, rd.Jobs[i], !rd.Warmup, false)
		res.Outcomes[i], res.Sent[i] = out, true
		return SampleOf(out)
	}
	var err error
	if rd.Rate > 0 {
		res.Run, err = loadgen.RunOpen(ctx, fn, loadgen.Open{Rate: rd.Rate, Seed: rd.Seed, Requests: len(rd.Jobs), MaxInFlight: conc})
	} else {
		res.Run, err = loadgen.RunClosed(ctx, fn, loadgen.Closed{Concurrency: conc, Requests: len(rd.Jobs)})
	}
	if err != nil {
		return res, fmt.Errorf("runner: round: %w", err)
	}
	rt := s.r.runtime
	res.Metal = results.Metal{MetalActiveGB: rt.MetalActiveGB, MetalPeakGB: rt.MetalPeakGB, MetalCacheGB: rt.MetalCacheGB}
	if side && ctx.Err() == nil {
		after = s.r.scrapeWithin(ctx, limit)
		if st := s.r.statusWithin(ctx, limit); len(st) > 0 {
			res.Metal = serverinfo.ParseStatus(st)
		}
	}
	res.CacheHits = scrape.Delta(before.Hits, after.Hits)
	res.CacheMisses = scrape.Delta(before.Misses, after.Misses)
	res.TokensSaved = scrape.Delta(before.TokensSaved, after.TokensSaved)
	return res, nil
}

// SampleOf is the load generator's sample of an outcome: its timings and
// the one verdict of the record (results.Record.Outcome): a request that
// failed a check is of kind quality, a capped answer succeeded.
func SampleOf(out Outcome) loadgen.Sample {
	smp := loadgen.SampleOf(out.Result, out.Err)
	if rec := out.Record; rec.Outcome.Failed() {
		smp.Kind = rec.ErrorKind
		if smp.Err == nil {
			smp.Err = errors.New("quality check failed")
		}
	}
	return smp
}

// AppendSweepRow journals a sweep row computed from the session's
// records (see resultio.Journal.AppendSweepRow), so that benchserve
// recover rebuilds the rows of a sweep stopped before its output was
// written. Without a journal it does nothing.
func (s *Session) AppendSweepRow(row results.SweepResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.journal != nil && s.journalErr == nil {
		s.journalErr = s.journal.AppendSweepRow(row)
	}
}
