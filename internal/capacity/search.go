package capacity

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/stats"
)

// By names what a search varies.
type By string

const (
	// ByRate varies the open-loop request rate (requests per second).
	ByRate By = "rate"
	// ByConcurrency varies the number of concurrent streams of a closed
	// loop (whole numbers).
	ByConcurrency By = "concurrency"
)

// Unit is the unit of a load of this kind: "req/s" or "streams".
func (b By) Unit() string {
	if b == ByConcurrency {
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
	// DefaultProbeRequests is the fewest requests a probe sends: with 50, a
	// p95 rests on the slowest two or three requests, and a queue that
	// grows faster than it drains has 50 arrivals to show it.
	DefaultProbeRequests = 50
	// DefaultPrecision stops the bisection once the failing load is within
	// 10% above the passing one.
	DefaultPrecision = 0.1
	// concurrencyRounds is how many requests each stream of a
	// concurrency probe sends at least (so the simultaneous first round is
	// a small part of the probe).
	concurrencyRounds = 8
)

// ProbeSpec is one probe for a ProbeFunc to run.
type ProbeSpec struct {
	// Index is the probe's 0-based position in the search.
	Index int
	// By says what Load is.
	By By
	// Load is the request rate in requests per second (ByRate) or the
	// number of concurrent streams (ByConcurrency, a whole number).
	Load float64
	// Requests is how many requests to send (the stability rule, see
	// Config); 0 when Duration bounds the probe instead.
	Requests int
	// Duration, when > 0, bounds a concurrency probe by time instead of
	// a count: keep sending for that long (Config.ProbeDuration).
	Duration time.Duration
}

// ProbeFunc runs one probe, a load run at spec.Load, and returns its
// statistics (loadgen.Run.Stats; stats.Stats.ErrorRate counts failed and
// dropped requests). ctx ends when the search's time cap passes or the
// caller's context ends; a probe cut short that way is discarded. An
// error stops the search (request failures belong in the stats, not
// here).
type ProbeFunc func(ctx context.Context, spec ProbeSpec) (stats.Stats, error)

// Config configures Search. The zero value of every field but SLOs has a
// default, given in its comment.
type Config struct {
	// SLOs are the thresholds every passing probe meets (stats.Threshold,
	// e.g. "ttft_p95_ms <= 500"). A threshold with no sample to measure
	// (every request failed) fails.
	SLOs []stats.Threshold
	// MaxErrorRate is the highest stats.Stats.ErrorRate a passing probe
	// may have, in [0, 1]; it is checked as the threshold
	// "error_rate <= MaxErrorRate". 0 tolerates no failed request.
	MaxErrorRate float64
	// By is ByRate (default) or ByConcurrency.
	By By
	// Start is the first probe's load; 0 means DefaultStart. Concurrency
	// is rounded down to a whole number.
	Start float64
	// Max bounds the ramp: a search whose probe at Max passes reports Max
	// with Status StatusMaxReached. 0 means DefaultMax.
	Max float64
	// ProbeRequests and ProbeDuration make each probe long enough to be
	// stable. A rate probe sends max(ProbeRequests, ⌈rate ×
	// ProbeDuration⌉) requests: at least ProbeRequests requests and at
	// least ProbeDuration of arrivals. A concurrency probe runs for
	// ProbeDuration when it is set, else sends max(ProbeRequests, 8 ×
	// concurrency) requests (each stream at least 8). ProbeRequests 0
	// means DefaultProbeRequests.
	ProbeRequests int
	ProbeDuration time.Duration
	// MaxTime caps the whole search: no probe starts after it, and a
	// probe still running when it passes is cancelled and discarded; the
	// result is then the highest load that passed so far, with
	// StatusTimeCap. 0 means no cap beyond the probe count, which is
	// bounded anyway (MaxProbes).
	MaxTime time.Duration
	// Precision ends the bisection when (lowest failing − highest
	// passing) <= Precision × highest passing, in (0, 1); 0 means
	// DefaultPrecision. A concurrency search also ends when the two are
	// adjacent whole numbers.
	Precision float64
	// OnProbe, when set, is called with every probe as it finishes (to
	// print it: Probe.String).
	OnProbe func(Probe)

	// now is the clock (time.Now when nil); tests replace it.
	now func() time.Time
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
		c.Start = DefaultStart
	}
	if c.Max == 0 {
		c.Max = math.Max(DefaultMax, c.Start)
	}
	if c.By == ByConcurrency {
		c.Start, c.Max = math.Floor(c.Start), math.Floor(c.Max)
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
	case c.ProbeDuration < 0 || c.MaxTime < 0:
		return bad("negative duration (probe %v, max time %v)", c.ProbeDuration, c.MaxTime)
	case c.Precision != 0 && !(c.Precision > 0 && c.Precision < 1):
		return bad("precision %v: want a fraction in (0, 1)", c.Precision)
	}
	for i, t := range c.SLOs {
		if t.Metric == "" || t.Op == "" {
			return bad("slo %d (%q): not parsed: build it with stats.ParseThreshold", i, t.Expr)
		}
	}
	if c.ProbeRequests == 0 {
		c.ProbeRequests = DefaultProbeRequests
	}
	if c.Precision == 0 {
		c.Precision = DefaultPrecision
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
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
	bisect := int(math.Ceil(math.Log2(1/c.Precision) - 1e-9))
	if c.By == ByConcurrency {
		// Whole numbers: at most ⌈log2(gap)⌉ for a gap of at most Max/2.
		bisect = min(bisect, int(math.Ceil(math.Log2(math.Max(c.Max/2, 1))-1e-9)))
	}
	return ramp + max(bisect, 0)
}

// spec is probe i at load.
func (c Config) spec(i int, load float64) ProbeSpec {
	s := ProbeSpec{Index: i, By: c.By, Load: load}
	switch {
	case c.By == ByConcurrency && c.ProbeDuration > 0:
		s.Duration = c.ProbeDuration
	case c.By == ByConcurrency:
		s.Requests = max(c.ProbeRequests, concurrencyRounds*int(load))
	default:
		s.Requests = max(c.ProbeRequests, int(math.Ceil(load*c.ProbeDuration.Seconds())))
	}
	return s
}

// Status says how a search ended.
type Status string

const (
	// StatusFound: the capacity lies between the highest passing and the
	// lowest failing load, within Precision.
	StatusFound Status = "found"
	// StatusMaxReached: the probe at Config.Max passed; the capacity is
	// at least Max.
	StatusMaxReached Status = "max_reached"
	// StatusFirstFailed: the first probe (at Config.Start) failed; the
	// capacity is below Start and reported as 0.
	StatusFirstFailed Status = "first_probe_failed"
	// StatusTimeCap: Config.MaxTime passed before the search converged;
	// the capacity is the highest load that passed (a lower bound), 0
	// when none had.
	StatusTimeCap Status = "time_cap"
	// StatusStopped: the caller's context ended or a probe returned an
	// error; the capacity is the highest load that passed so far.
	StatusStopped Status = "stopped"
)

// Result is what a search found: capacity.json (see MarshalJSON).
type Result struct {
	// By says what Capacity and every probe's Load are.
	By By
	// Capacity is the highest load (req/s or streams) at which every SLO
	// held and the error rate stayed within MaxErrorRate; 0 when none
	// did (Reason says why).
	Capacity float64
	// Status says how the search ended; Reason says it in a sentence,
	// with the loads and the failing thresholds.
	Status Status
	Reason string
	// SLOs are the thresholds as written, the error-rate threshold last.
	SLOs []string
	// MaxErrorRate is Config.MaxErrorRate.
	MaxErrorRate float64
	// Start, Max, Precision, ProbeRequests, ProbeDuration and MaxTime echo
	// the search's Config, defaults applied (capacity.json records how the
	// answer was found).
	Start, Max, Precision float64
	ProbeRequests         int
	ProbeDuration         time.Duration
	MaxTime               time.Duration
	// Elapsed is the search's wall time.
	Elapsed time.Duration
	// Probes are every probe run, in order.
	Probes []Probe
}

// Search finds the highest load at which every SLO of cfg holds: it ramps
// up from cfg.Start, doubling, until a probe fails or cfg.Max passes, then
// bisects between the last pass and the first fail until they are within
// cfg.Precision or cfg.MaxTime passes (see Config for the probe-length
// rule). It runs at most cfg.MaxProbes() probes.
//
// It returns an error, before any probe, for an invalid cfg. A probe
// error or the end of ctx stops the search: the Result then holds the
// probes run so far and the highest load that passed (StatusStopped), and
// the error wraps the cause and names the probe's load.
func Search(ctx context.Context, probe ProbeFunc, cfg Config) (out Result, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	errRate := stats.Threshold{Expr: "error_rate <= " + strconv.FormatFloat(cfg.MaxErrorRate, 'g', -1, 64),
		Metric: "error_rate", Op: "<=", Value: cfg.MaxErrorRate}
	ths := append(append([]stats.Threshold(nil), cfg.SLOs...), errRate)
	res := Result{By: cfg.By, MaxErrorRate: cfg.MaxErrorRate, Start: cfg.Start, Max: cfg.Max,
		Precision: cfg.Precision, ProbeRequests: cfg.ProbeRequests, ProbeDuration: cfg.ProbeDuration,
		MaxTime: cfg.MaxTime, Probes: []Probe{}}
	for _, t := range ths {
		res.SLOs = append(res.SLOs, t.Expr)
	}
	began := cfg.now()
	defer func() { out.Elapsed = cfg.now().Sub(began) }()
	probeCtx := ctx
	if cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		probeCtx, cancel = context.WithTimeout(ctx, cfg.MaxTime)
		defer cancel()
	}
	unit := cfg.By.Unit()
	lo, hi := 0.0, math.Inf(1) // highest pass, lowest fail
	var firstFail *Probe

	// run probes load; ok is false when the search must stop (time cap,
	// cancellation or a probe error, recorded in res).
	run := func(load float64) (p Probe, ok bool, err error) {
		if cfg.MaxTime > 0 && cfg.now().Sub(began) >= cfg.MaxTime {
			return p, false, nil
		}
		spec := cfg.spec(len(res.Probes), load)
		st, perr := probe(probeCtx, spec)
		switch {
		case ctx.Err() != nil:
			return p, false, fmt.Errorf("capacity: probe at %s %s: %w", fmtLoad(load), unit, context.Cause(ctx))
		case probeCtx.Err() != nil:
			return p, false, nil // cut by the time cap: discarded
		case perr != nil:
			return p, false, fmt.Errorf("capacity: probe at %s %s: %w", fmtLoad(load), unit, perr)
		}
		p = newProbe(spec, st, stats.Evaluate(st, ths))
		res.Probes = append(res.Probes, p)
		if cfg.OnProbe != nil {
			cfg.OnProbe(p)
		}
		return p, true, nil
	}
	stop := func(err error) (Result, error) {
		res.Capacity = lo
		if err != nil {
			res.Status = StatusStopped
			res.Reason = fmt.Sprintf("stopped after %d probes (%v); highest passing load %s %s", len(res.Probes), err, fmtLoad(lo), unit)
			return res, err
		}
		res.Status = StatusTimeCap
		res.Reason = fmt.Sprintf("time cap %v reached after %d probes", cfg.MaxTime, len(res.Probes))
		switch {
		case lo == 0:
			res.Reason += "; no probe passed yet"
		case math.IsInf(hi, 1):
			res.Reason += fmt.Sprintf("; capacity at least %s %s (no probe failed yet)", fmtLoad(lo), unit)
		default:
			res.Reason += fmt.Sprintf("; capacity between %s and %s %s", fmtLoad(lo), fmtLoad(hi), unit)
		}
		return res, nil
	}

	// Ramp.
	for load := cfg.Start; ; load = math.Min(load*2, cfg.Max) {
		p, ok, err := run(load)
		if !ok {
			return stop(err)
		}
		if !p.Pass {
			hi, firstFail = load, &p
			break
		}
		lo = load
		if load >= cfg.Max {
			res.Capacity, res.Status = lo, StatusMaxReached
			res.Reason = fmt.Sprintf("every probe passed up to the maximum %s %s: capacity at least that", fmtLoad(lo), unit)
			return res, nil
		}
	}
	if lo == 0 {
		res.Status = StatusFirstFailed
		res.Reason = fmt.Sprintf("even the first probe, at %s %s, failed: %s", fmtLoad(cfg.Start), unit, strings.Join(firstFail.Failed, "; "))
		return res, nil
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
		if p.Pass {
			lo = mid
		} else {
			hi = mid
		}
	}
	res.Capacity, res.Status = lo, StatusFound
	res.Reason = fmt.Sprintf("highest passing load %s %s; the lowest failing was %s %s", fmtLoad(lo), unit, fmtLoad(hi), unit)
	return res, nil
}

// fmtLoad prints a load with up to 3 decimals, trailing zeros dropped.
func fmtLoad(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// AtLeast checks the capacity against a floor (a CI gate: "capacity >=
// 12 req/s"): nil when r.Capacity >= floor, else an error giving the
// capacity, the floor and the search's reason. A search stopped by its
// time cap passes when the load that passed so far already reaches the
// floor (the capacity is a lower bound).
func (r Result) AtLeast(floor float64) error {
	if r.Capacity >= floor {
		return nil
	}
	by := r.By
	if by == "" {
		by = ByRate
	}
	return fmt.Errorf("capacity %s %s is below the floor %s %s (%s: %s)",
		fmtLoad(r.Capacity), by.Unit(), fmtLoad(floor), by.Unit(), r.Status, r.Reason)
}

// ParseBy parses a --by value: "rate" (or "") or "concurrency"; the error
// quotes the value.
func ParseBy(s string) (By, error) {
	switch By(strings.ToLower(strings.TrimSpace(s))) {
	case "", ByRate:
		return ByRate, nil
	case ByConcurrency:
		return ByConcurrency, nil
	}
	return "", fmt.Errorf("capacity: by %q: want rate or concurrency", s)
}
