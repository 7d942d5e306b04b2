package capacity

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// What a search varies (results.CapacitySearch.By).
const (
	// ByRate varies the open-loop request rate (requests per second).
	ByRate = "rate"
	// ByConcurrency varies the number of concurrent streams of a closed
	// loop (whole numbers).
	ByConcurrency = "concurrency"
)

// unit is the unit of a load searched by by: "req/s" or "streams".
func unit(by string) string {
	if by == ByConcurrency {
		return "streams"
	}
	return "req/s"
}

// Defaults of Config's zero fields.
const (
	// DefaultStart is the first probe's load (1 req/s or 1 stream).
	DefaultStart = 1
	// DefaultMax bounds the ramp: 1024 req/s or streams.
	DefaultMax = 1024
	// DefaultProbeRequests is the fewest measured requests (after the
	// warm-up) a probe's verdict is first looked at with, when the SLOs
	// need fewer (means, error rates, medians).
	DefaultProbeRequests = 50
	// DefaultTail is how many measured requests should lie beyond the
	// percentile of each SLO at the first look: ⌈5 / (1 − p)⌉, 100 for a
	// p95, 500 for a p99.
	DefaultTail = 5
	// DefaultExtensions is how many times a probe whose interval reaches
	// across a threshold is extended, doubling its measured requests each
	// time, before it is called inconclusive.
	DefaultExtensions = 3
	// DefaultPrecision stops the bisection once the failing load is within
	// 10% above the passing one.
	DefaultPrecision = 0.1
	// concurrencyRounds is how many requests each stream of a
	// concurrency probe sends at least.
	concurrencyRounds = 8
)

// ProbeSpec is one probe for a ProbeFunc to run.
type ProbeSpec struct {
	// Index is the probe's 0-based position in the search (the probe
	// lines and capacity.json number probes from 1: Probe.Number).
	Index int
	// By says what Load is (ByRate or ByConcurrency).
	By string
	// Load is the request rate in requests per second (ByRate) or the
	// number of concurrent streams (ByConcurrency, a whole number).
	Load float64
	// Requests is the most requests to send: the target's measured
	// requests, doubled per extension, plus the warm-up (see Config); the
	// search usually stops the probe before. 0 when Duration bounds the
	// probe instead.
	Requests int
	// Duration, when > 0, bounds a concurrency probe by time instead of
	// a count: keep sending for that long (Config.ProbeDuration).
	Duration time.Duration
	// Target is the measured requests (after the warm-up) at which the
	// verdict is first looked at (Config.ProbeRequests, or what the SLOs
	// need).
	Target int
}

// ProbeFunc runs one probe, a load run at spec.Load for at most
// spec.Requests requests (or spec.Duration), telling obs of every request
// as it is sent and as it completes (Watch does that for a
// loadgen.Func), and returns the run (its samples by index: Sent, the
// measurements, failures by kind; dropped requests too).
//
// ctx ends when the search has seen enough of the probe (its verdict is
// decided, or the server saturated), when the search's time cap passes or
// when the caller's context ends. The ProbeFunc then returns what it has
// run so far, with or without an error: the search leaves out the
// requests cut short, and discards a probe cut by the time cap. Another
// error stops the search (request failures belong in the samples).
type ProbeFunc func(ctx context.Context, spec ProbeSpec, obs Observer) (*loadgen.Run, error)

// Config configures Search: the search's settings (results.CapacitySearch,
// whose comments give every default) and the engine's hooks.
type Config struct {
	results.CapacitySearch
	// Goodput, when set, is the per-request SLO the probes' goodput is
	// counted against (summary.Options.Goodput), for a "goodput >= N"
	// threshold.
	Goodput *results.GoodputSLO
	// OnProbe, when set, is called with every probe as it finishes (to
	// print it: results.CapacityProbe.String).
	OnProbe func(results.CapacityProbe)
	// OnStart, when set, is called as every probe starts (to log it:
	// StartLine), and OnProgress with a running probe's Progress at each
	// of its completions (for a live line; it is called under the
	// probe's lock, from the requests' goroutines: keep it quick).
	OnStart    func(ProbeSpec)
	OnProgress func(Progress)
	// OnStartFrom, when set, is told where a search without a Start
	// starts (req/s) and why (results.Capacity.StartFrom), once the
	// burst has measured it, before the first probe.
	OnStartFrom func(start float64, why string)
	// Client bounds what a probe's client may show before the probe is
	// called invalid and the search stops (StatusClientLimited): its
	// schedule lag p99 and its CPU use. nil means
	// runner.DefaultClientLimits, the bounds a load run is judged by.
	Client *runner.ClientLimits

	// now is the clock (time.Now when nil); tests replace it.
	now func() time.Time
	// estimateStart: Start was 0 in a rate search, so the search measures
	// where to start (serviceRate).
	estimateStart bool
}

// Validate reports a Config that Search would refuse (a bad By, Start
// above Max, a precision or error rate out of range, …), so a caller can
// say so before anything is sent.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

// withDefaults validates c and fills in its defaults.
func (c Config) withDefaults() (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return c, fmt.Errorf("capacity: config: "+format, args...)
	}
	switch c.By {
	case "":
		c.By = ByRate
	case ByRate, ByConcurrency:
	default:
		return bad("by %q: want %q or %q", c.By, ByRate, ByConcurrency)
	}
	if c.Start == 0 {
		// A rate search measures where to start (serviceRate); until
		// then, and for a concurrency search, DefaultStart.
		c.estimateStart = c.By == ByRate
		c.Start = DefaultStart
	}
	if c.Max == 0 {
		c.Max = math.Max(DefaultMax, c.Start)
	}
	if c.By == ByConcurrency {
		if c.Start != math.Floor(c.Start) || c.Max != math.Floor(c.Max) {
			// Rounding 0.5 down would report "start 0", not what was given.
			return bad("concurrency start %v, max %v: want whole numbers of streams (>= 1)", c.Start, c.Max)
		}
	}
	switch {
	case !(c.Start > 0) || math.IsInf(c.Start, 0):
		return bad("start %v: want a finite load > 0 (concurrency >= 1)", c.Start)
	case !(c.Max >= c.Start) || math.IsInf(c.Max, 0):
		return bad("max %v: want a finite load >= start %v", c.Max, c.Start)
	case !(c.MaxErrorRate >= 0 && c.MaxErrorRate <= 1):
		return bad("max error rate %v: want a fraction in [0, 1]", c.MaxErrorRate)
	case c.ProbeRequests < 0:
		return bad("probe requests %d: want >= 0", c.ProbeRequests)
	case c.ProbeRequests > 0 && c.ProbeRequests < 10:
		return bad("probe requests %d: want at least 10 measured requests (0 derives them from the SLOs)", c.ProbeRequests)
	case c.ProbeDuration < 0 || c.MaxTime < 0:
		return bad("negative duration (probe %v, max time %v)", c.ProbeDuration, c.MaxTime)
	case c.Precision != 0 && !(c.Precision > 0 && c.Precision < 1):
		return bad("precision %v: want a fraction in (0, 1)", c.Precision)
	case c.Fit && c.By == ByConcurrency:
		return bad("fit: the fit searches by rate only (a concurrency search bisects)")
	}
	for i, t := range c.SLOs {
		if t.Metric == "" || t.Op == "" {
			return bad("slo %d (%q): not parsed: build it with results.ParseThreshold", i, t.Expr)
		}
		if why := searchable(t); why != "" {
			return bad("slo %q: %s", t.Expr, why)
		}
	}
	if c.ProbeRequests == 0 {
		c.ProbeRequests = TargetRequests(c.SLOs)
	}
	switch {
	case c.Extensions == 0 && c.Fit && c.By == ByRate:
		// The ramp only brackets: the fit pools the probes near the
		// crossing, so none runs beyond fitProbeMeasured.
		c.Extensions = max(0, int(math.Floor(math.Log2(float64(fitProbeMeasured(c))/float64(c.ProbeRequests)))))
	case c.Extensions == 0:
		c.Extensions = DefaultExtensions
	case c.Extensions < 0:
		c.Extensions = 0
	}
	if c.Precision == 0 {
		c.Precision = DefaultPrecision
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
}

// latencyMetrics rise with load: a capacity SLO caps them from above.
var latencyMetrics = map[string]bool{"ttft": true, "ttfo": true, "tpot": true, "itl": true, "e2el": true, "lag": true}

// searchable says why a search cannot use t ("" when it can): a search
// looks for the highest load at which t holds, so t must get harder to
// hold as load rises (an upper limit on a latency or the error rate, a
// lower one on gen_tps or a throughput), and a percentile must have a
// confidence interval a probe can decide on (p100, the maximum, has none
// with an upper end).
func searchable(t results.Threshold) string {
	upper := t.Op == "<" || t.Op == "<="
	switch {
	case t.Op == "==" || t.Op == "!=":
		return "an equality has no direction for the search to follow: want <= or < on a latency, >= or > on a throughput"
	case (latencyMetrics[t.Metric] || t.Metric == "error_rate") && !upper:
		return fmt.Sprintf("a lower limit on %s, which rises with load: a capacity search needs an upper limit (<= or <)", t.Metric)
	case t.Metric == "gen_tps" && upper:
		return "an upper limit on gen_tps, which falls with load: a capacity search needs a lower limit (>= or >)"
	case t.Stat == "p100":
		return "p100 is the maximum: no confidence interval bounds it, so no probe could pass with confidence (use max for its point value, or p99)"
	}
	return ""
}

// MaxProbes is the most probes Search runs with this configuration
// (defaults applied; 0 for an invalid one): the ramp's 1 + ⌈log2(Max /
// Start)⌉ and the bisection's ⌈log2(1 / Precision)⌉, since the ramp's
// last pass and first fail are a factor of 2 apart at most.
func (c Config) MaxProbes() int {
	c, err := c.withDefaults()
	if err != nil {
		return 0
	}
	ramp := 1 + int(math.Ceil(math.Log2(c.Max/c.Start)-1e-9))
	if c.estimateStart {
		// Up from wherever the estimate lands (at least DefaultStart,
		// at most Max) in steps of estimatedGrowth, or down maxStepsDown.
		ramp = 1 + max(maxStepsDown, int(math.Ceil(math.Log(c.Max/c.Start)/math.Log(estimatedGrowth)-1e-9)))
	}
	bisect := int(math.Ceil(math.Log2(1/c.Precision) - 1e-9))
	if c.By == ByConcurrency {
		// Whole numbers: at most ⌈log2(gap)⌉ for a gap of at most Max/2.
		bisect = min(bisect, int(math.Ceil(math.Log2(math.Max(c.Max/2, 1))-1e-9)))
	}
	return ramp + max(bisect, 0)
}

// TargetRequests is the measured requests a probe needs for ths by
// default: DefaultTail beyond the highest percentile among them
// (⌈DefaultTail / (1 − p/100)⌉), at least DefaultProbeRequests.
func TargetRequests(ths []results.Threshold) int {
	n := DefaultProbeRequests
	for _, t := range ths {
		p := 0.0
		switch {
		case t.Stat == "median":
			p = 50
		case strings.HasPrefix(t.Stat, "p"):
			p, _ = strconv.ParseFloat(t.Stat[1:], 64)
		}
		if p > 0 && p < 100 {
			n = max(n, int(math.Ceil(DefaultTail/(1-p/100)-1e-9)))
		}
	}
	return n
}

// spec is probe i at load.
func (c Config) spec(i int, load float64) ProbeSpec {
	s := ProbeSpec{Index: i, By: c.By, Load: load, Target: c.ProbeRequests}
	switch {
	case c.By == ByConcurrency && c.ProbeDuration > 0:
		s.Duration = c.ProbeDuration
	case c.By == ByConcurrency:
		s.Target = max(s.Target, concurrencyRounds*int(load))
	default:
		s.Target = max(s.Target, int(math.Ceil(load*c.ProbeDuration.Seconds())))
	}
	if s.Duration == 0 {
		most := s.Target << c.Extensions
		s.Requests = int(math.Ceil(float64(most)/(1-warmupFraction))) + 1
	}
	return s
}

// targets are the measured-request counts at which spec's verdict is
// looked at: its target, doubled per extension.
func (c Config) targets(spec ProbeSpec) []int {
	out := make([]int, c.Extensions+1)
	for i := range out {
		out[i] = spec.Target << i
	}
	return out
}

// Search finds the highest load at which every SLO of cfg holds: it ramps
// up from cfg.Start, doubling, until a probe does not pass or cfg.Max
// passes, then bisects between the highest passing and the lowest
// non-passing load until they are within cfg.Precision or cfg.MaxTime
// passes. An inconclusive probe steers the search by its measured values
// (Probe.Leans), so the estimate is not biased low by the intervals'
// width; the interval (Result.Interval) counts only probes decided with
// confidence. It runs at most cfg.MaxProbes() probes.
//
// Each probe is watched as it runs (Observer): its warm-up is left out
// (until the requests in flight have built up to their level, at least
// 10% of the arrivals and two service times), and at its target of
// measured requests its verdict is looked at: pass when every threshold
// holds with confidence (a percentile's 95% interval,
// results.Dist.PercentileInterval, lies within the limit), fail when one
// fails with confidence; otherwise the probe goes on to twice the
// measured requests, up to cfg.Extensions times, and is then
// inconclusive. An open-loop probe whose arrivals outrun its completions (the
// requests in flight and TTFT rising through it) is stopped at once as
// saturated (a failure). The search then stops the probe: the requests it
// cut short are left out.
//
// It returns an error, before any probe, for an invalid cfg. A probe
// error or the end of ctx stops the search: the Result then holds the
// probes run so far and the highest load that passed (StatusStopped), and
// the error wraps the cause and names the probe's load.
func Search(ctx context.Context, probe ProbeFunc, cfg Config) (out results.Capacity, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return results.Capacity{}, err
	}
	errRate := results.Threshold{Expr: "error_rate <= " + strconv.FormatFloat(cfg.MaxErrorRate, 'g', -1, 64),
		Metric: "error_rate", Op: "<=", Value: cfg.MaxErrorRate}
	ths := append(append([]results.Threshold(nil), cfg.SLOs...), errRate)
	res := results.Capacity{CapacitySearch: cfg.CapacitySearch, Probes: []results.CapacityProbe{}}
	res.SLOs = ths
	began := cfg.now()
	fitted := false // the fit set the estimate and its interval
	defer func() {
		out.Elapsed = cfg.now().Sub(began)
		if !fitted {
			estimate(&out)
		}
	}()
	probeCtx := ctx
	if cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		probeCtx, cancel = context.WithTimeout(ctx, cfg.MaxTime)
		defer cancel()
	}
	unit := unit(cfg.By)
	lo, hi := 0.0, math.Inf(1) // highest pass, lowest non-pass
	var firstFail *results.CapacityProbe
	// limited is the probe whose client could not keep up (clientLimited):
	// the search stops there.
	var limited *results.CapacityProbe

	// points are the probes' measured requests, for the fit.
	var points []measuredProbe
	fit := fitter{opts: summary.Options{Goodput: cfg.Goodput}}

	// runFor probes load, to exactly measured requests when measured > 0;
	// ok is false when the search must stop (time cap, cancellation or a
	// probe error, recorded in res).
	runFor := func(load float64, measured int) (p results.CapacityProbe, ok bool, err error) {
		if cfg.MaxTime > 0 && cfg.now().Sub(began) >= cfg.MaxTime {
			return p, false, nil
		}
		spec := cfg.spec(len(res.Probes), load)
		targets := cfg.targets(spec)
		if measured > 0 {
			spec.Target, targets = measured, []int{measured}
			spec.Requests = int(math.Ceil(float64(measured)/(1-maxWarmupFraction))) + 1
		}
		pctx, stopProbe := context.WithCancelCause(probeCtx)
		defer stopProbe(nil)
		mon := &monitor{ths: ths, opts: summary.Options{Goodput: cfg.Goodput}, targets: targets,
			openLoop: cfg.By == ByRate, cancel: stopProbe, maxErrorRate: cfg.MaxErrorRate, spec: spec, onProgress: cfg.OnProgress}
		if cfg.OnStart != nil {
			cfg.OnStart(spec)
		}
		if cfg.By == ByConcurrency {
			mon.minWarm = int(load)
		}
		lr, perr := probe(pctx, spec, mon)
		mon.mu.Lock()
		mon.stopped = true // late Done calls change nothing
		mon.mu.Unlock()
		cut := context.Cause(pctx) == errStopped
		switch {
		case ctx.Err() != nil:
			return p, false, fmt.Errorf("capacity: probe at %s %s: %w", stats.FormatLoad(load), unit, context.Cause(ctx))
		case probeCtx.Err() != nil:
			return p, false, nil // cut by the time cap: discarded
		case perr != nil && !cut:
			return p, false, fmt.Errorf("capacity: probe at %s %s: %w", stats.FormatLoad(load), unit, perr)
		case lr == nil:
			return p, false, fmt.Errorf("capacity: probe at %s %s: no run returned", stats.FormatLoad(load), unit)
		}
		p, samples := newProbe(spec, lr, mon, ths, cut)
		lim := runner.DefaultClientLimits
		if cfg.Client != nil {
			lim = *cfg.Client
		}
		if why := clientLimited(p, lr, lim); why != "" {
			// The probe measured the client: no verdict on the server,
			// and no probe above it can do better.
			p.Verdict, p.Pass, p.PointPass = VerdictInvalid, false, false
			p.Failed = append(p.Failed, why)
			res.Probes = append(res.Probes, p)
			if cfg.OnProbe != nil {
				cfg.OnProbe(p)
			}
			limited = &p
			return p, false, nil
		}
		if a := fitLoad(p); a > 0 && len(samples) > 0 {
			points = append(points, measuredProbe{x: a, samples: samples})
		}
		res.Probes = append(res.Probes, p)
		if cfg.OnProbe != nil {
			cfg.OnProbe(p)
		}
		return p, true, nil
	}
	run := func(load float64) (results.CapacityProbe, bool, error) { return runFor(load, 0) }
	stop := func(err error) (results.Capacity, error) {
		res.Capacity = lo
		if limited != nil && err == nil {
			res.Status = StatusClientLimited
			res.Reason = fmt.Sprintf("the probe at %s %s is invalid, its %s: the capacity is at least the highest passing load %s %s, a bound of this client, not of the server (spread the load over more clients: --shard)",
				stats.FormatLoad(limited.Load), unit, limited.Failed[len(limited.Failed)-1], stats.FormatLoad(lo), unit)
			if lo == 0 {
				res.Reason = fmt.Sprintf("the probe at %s %s is invalid, its %s, and no probe passed below it (spread the load over more clients: --shard)",
					stats.FormatLoad(limited.Load), unit, limited.Failed[len(limited.Failed)-1])
			}
			return res, nil
		}
		if err != nil {
			res.Status = StatusStopped
			res.Reason = fmt.Sprintf("stopped after %d probes (%v); highest passing load %s %s", len(res.Probes), err, stats.FormatLoad(lo), unit)
			return res, err
		}
		res.Status = StatusTimeCap
		res.Reason = fmt.Sprintf("time cap %v reached after %d probes", cfg.MaxTime, len(res.Probes))
		switch {
		case len(res.Probes) == 0:
			res.Reason += ": nothing was measured (a probe cut by the cap is discarded)"
		case lo == 0:
			res.Reason += "; no probe passed yet"
		case math.IsInf(hi, 1):
			res.Reason += fmt.Sprintf("; capacity at least %s %s (every probe passed so far)", stats.FormatLoad(lo), unit)
		default:
			res.Reason += fmt.Sprintf("; capacity between %s and %s %s", stats.FormatLoad(lo), stats.FormatLoad(hi), unit)
		}
		return res, nil
	}

	grow := 2.0
	if cfg.estimateStart {
		rate, why, err := serviceRate(probeCtx, probe)
		switch {
		case ctx.Err() != nil:
			return stop(fmt.Errorf("capacity: start estimate: %w", context.Cause(ctx)))
		case probeCtx.Err() != nil:
			return stop(nil) // the time cap
		case err != nil:
			return stop(err)
		}
		if rate > 0 {
			cfg.Start = min(roundLoad(startShare*rate), cfg.Max)
		}
		res.Start, res.StartFrom, grow = cfg.Start, why, estimatedGrowth
		if cfg.OnStartFrom != nil {
			cfg.OnStartFrom(cfg.Start, why)
		}
	}
	// Ramp: up from the start until a probe does not pass; from an
	// estimated start that did not pass, down until one does.
	load := cfg.Start
	for {
		p, ok, err := run(load)
		if !ok {
			return stop(err)
		}
		if !p.Leans() {
			hi, firstFail = load, &p
			break
		}
		lo = load
		if load >= cfg.Max {
			res.Capacity, res.Status = lo, StatusMaxReached
			res.Reason = fmt.Sprintf("every probe passed up to the maximum %s %s: capacity at least that", stats.FormatLoad(lo), unit)
			return res, nil
		}
		load = math.Min(roundLoad(load*grow), cfg.Max)
	}
	for steps := 0; lo == 0 && cfg.estimateStart && steps < maxStepsDown; steps++ {
		load = roundLoad(load / grow)
		p, ok, err := run(load)
		if !ok {
			return stop(err)
		}
		if p.Leans() {
			lo = load
		} else {
			hi = load
		}
	}
	if lo == 0 {
		res.Status = StatusFirstFailed
		res.Reason = fmt.Sprintf("even the first probe, at %s %s, did not pass (%s): %s", stats.FormatLoad(cfg.Start), unit,
			firstFail.Verdict, strings.Join(firstFail.Failed, "; "))
		if cfg.estimateStart {
			res.Reason = fmt.Sprintf("no probe passed, from the estimated start %s %s down to %s %s (the first: %s: %s)",
				stats.FormatLoad(cfg.Start), unit, stats.FormatLoad(hi), unit, firstFail.Verdict, strings.Join(firstFail.Failed, "; "))
		}
		return res, nil
	}
	if cfg.Fit && cfg.By == ByRate {
		if k := binding(*firstFail); k >= 0 && fittable(ths[k]) {
			fit.th = ths[k]
			out, err := fitSearch(&res, &fit, &points, runFor, stop, lo, hi, cfg)
			fitted = err == nil && out.Measured && out.Status != StatusTimeCap
			return out, err
		}
	}
	// Bisect.
	for hi-lo > cfg.Precision*lo && !(cfg.By == ByConcurrency && hi-lo <= 1) {
		mid := (lo + hi) / 2
		if cfg.By == ByConcurrency {
			mid = math.Floor(mid)
		}
		p, ok, err := run(mid)
		if !ok {
			return stop(err)
		}
		if p.Leans() {
			lo = mid
		} else {
			hi = mid
		}
	}
	res.Capacity, res.Status = lo, StatusFound
	res.Reason = fmt.Sprintf("the highest passing load %s %s and the lowest not passing %s %s are within the precision %g",
		stats.FormatLoad(lo), unit, stats.FormatLoad(hi), unit, cfg.Precision)
	if cfg.By == ByConcurrency && hi-lo <= 1 {
		res.Reason = fmt.Sprintf("the highest passing load %s %s and the lowest not passing %s %s are adjacent", stats.FormatLoad(lo), unit, stats.FormatLoad(hi), unit)
	}
	return res, nil
}

// ParseBy parses a --by value: "rate" (or "") or "concurrency"; the error
// quotes the value.
func ParseBy(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", ByRate:
		return ByRate, nil
	case ByConcurrency:
		return ByConcurrency, nil
	}
	return "", fmt.Errorf("capacity: by %q: want rate or concurrency", s)
}
