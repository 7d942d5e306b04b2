package benchtest

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/workloads"
)

// Capacity describes SearchCapacity's search: what must hold and how to
// look. The zero value of a field is its default (capacity.Config's, the
// flags of `benchserve capacity`).
type Capacity struct {
	// SLOs are the thresholds every probe must hold with confidence
	// ("ttft_p95_ms <= 200", the syntax of WithSLO); required.
	SLOs []string
	// MaxErrorRate is the highest error rate a passing probe may have
	// (--max-error-rate); 0 means 0.01.
	MaxErrorRate float64
	// ByConcurrency searches the number of streams in a closed loop
	// instead of the arrival rate (--by concurrency).
	ByConcurrency bool
	// Start is the first probe's load (req/s or streams) and Max the
	// highest the search tries (--start, --max-rate).
	Start, Max float64
	// ProbeRequests is each probe's measured requests (--probe-requests;
	// 0 derives them from the SLOs' percentiles), ProbeDuration its
	// length instead (--probe-duration).
	ProbeRequests int
	ProbeDuration time.Duration
	// Extensions is how many times a probe whose interval straddles a
	// threshold is doubled before it is inconclusive (--extensions; 0
	// means 3, negative none).
	Extensions int
	// MaxTime bounds the whole search (--max-time).
	MaxTime time.Duration
	// Precision is the relative width at which bisection stops.
	Precision float64
}

// config is c as the engine's search configuration; its thresholds are
// parsed here, at the door.
func (c Capacity) config() (capacity.Config, error) {
	ths, err := stats.ParseThresholds(c.SLOs...)
	if err != nil {
		return capacity.Config{}, fmt.Errorf("benchtest: Capacity.SLOs: %w", err)
	}
	cfg := capacity.Config{SLOs: ths, MaxErrorRate: c.MaxErrorRate, By: capacity.ByRate, Start: c.Start, Max: c.Max,
		ProbeRequests: c.ProbeRequests, ProbeDuration: c.ProbeDuration, Extensions: c.Extensions,
		MaxTime: c.MaxTime, Precision: c.Precision}
	if c.ByConcurrency {
		cfg.By = capacity.ByConcurrency
	}
	return cfg, cfg.Validate()
}

// CapacityResult is what SearchCapacity found, as capacity.json says it.
type CapacityResult struct {
	// Capacity is the estimate (req/s, or streams with ByConcurrency);
	// Measured is false when no probe measured anything.
	Capacity float64
	Measured bool
	// Low and High are the 95% interval's ends (NaN: unbounded): Low the
	// highest load that passed with confidence, High the lowest that
	// failed with confidence; Method says how the intervals were
	// computed.
	Low, High float64
	Method    string
	// Status is why the search ended ("found", "max_reached",
	// "first_probe_failed", "time_limit", …) and Reason the same in words.
	Status, Reason string
	// Probes are the probes in the order run.
	Probes []CapacityProbe
}

// CapacityProbe is one probe of a search.
type CapacityProbe struct {
	// Number counts the probes from 1; Load is its rate or streams.
	Number int
	Load   float64
	// Verdict is pass, fail, inconclusive or saturated; Failed lists the
	// thresholds it broke, each with its measured value and interval.
	Verdict string
	Failed  []string
	// Requests, Succeeded and FailedRequests count its measured
	// requests (the warm-up left out).
	Requests, Succeeded, FailedRequests int
}

// resultOf is res as SearchCapacity returns it.
func resultOf(res capacity.Result) CapacityResult {
	out := CapacityResult{Capacity: res.Capacity, Measured: res.Measured, Low: res.Interval.Low, High: res.Interval.High,
		Method: res.Interval.Method, Status: string(res.Status), Reason: res.Reason}
	for _, p := range res.Probes {
		out.Probes = append(out.Probes, CapacityProbe{Number: p.Number, Load: p.Load, Verdict: string(p.Verdict), Failed: p.Failed,
			Requests: p.Summary.Requests, Succeeded: p.Summary.Succeeded, FailedRequests: p.Summary.Failed})
	}
	return out
}

// SearchCapacity runs a capacity search with the workload at path as the
// request mix: each probe is a load run of its cases (every request
// judged by its case's checks) at the probe's rate or concurrency, on the
// configured server (the fixture without a URL; WithLoad's burstiness,
// seed, concurrency cap and goodput apply to every probe). Each probe
// measures the steady state (its warm-up left out) and gives every
// percentile a 95% interval; it is logged as it finishes, then the
// capacity with its interval and why the search stopped; the test's
// attributes carry capacity, capacity_low and capacity_high. With floor >
// 0 the test fails when the interval's lower end (the highest load that
// passed with confidence) is below it, the CI gate "capacity >= 12 req/s":
//
//	res := benchtest.SearchCapacity(t, "workloads/examples/smoke.json", benchtest.Capacity{
//		SLOs: []string{"ttft_p95_ms <= 200"}, Start: 4}, 12)
//
// A workload that does not load, a bad Capacity or a server that cannot
// be reached fails t at once; the result is returned.
func SearchCapacity(t *testing.T, path string, search Capacity, floor float64, opts ...Option) CapacityResult {
	t.Helper()
	c, err := resolve(opts)
	if err != nil {
		say(t).Fatalf("benchtest: configuration: %s", linesOf(err))
	}
	cfg, err := search.config()
	if err != nil {
		say(t).Fatalf("benchtest: %v", err)
	}
	w, err := workloads.Load(paths.ExpandHome(path))
	if err != nil {
		say(t).Fatalf("benchtest: workload did not load: %s", linesOf(err))
	}
	var base runner.Load
	if c.load != nil {
		base = *c.load
	}
	if base.Goodput == nil {
		base.Goodput = c.goodput
	}
	r := newRunner(t, c, max(64, base.MaxConcurrency, int(cfg.Max)))
	cfg.Goodput = base.Goodput
	cfg.OnProbe = func(p capacity.Probe) { say(t).Logf("benchtest: %s", p) }
	res, err := capacity.Search(t.Context(), r.CapacityProbe(w, runner.RunOptions{Tags: c.tags}, base, nil), cfg)
	if err != nil {
		say(t).Fatalf("benchtest: capacity search: %v", err)
	}
	say(t).Logf("benchtest: capacity %s (%s), %d probes; %s: stopped because %s", res.Headline(), res.Interval.Method, len(res.Probes), res.Status, res.Reason)
	if res.Measured {
		say(t).Attr("capacity", formatAttr(res.Capacity))
	}
	if !math.IsNaN(res.Interval.Low) {
		say(t).Attr("capacity_low", formatAttr(res.Interval.Low))
	}
	if !math.IsNaN(res.Interval.High) {
		say(t).Attr("capacity_high", formatAttr(res.Interval.High))
	}
	if floor > 0 {
		if err := res.AtLeast(floor); err != nil {
			say(t).Errorf("benchtest: %v", err)
		}
	}
	return resultOf(res)
}
