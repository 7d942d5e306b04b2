package benchtest

import (
	"math"
	"testing"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/workloads"
)

// SearchCapacity runs a capacity search (capacity.Search) with the
// workload at path as the request mix: each probe is a load run of its
// cases (every request judged by its case's checks) at the probe's rate
// or concurrency, on the configured server (the fixture without a URL;
// WithLoad's burstiness, seed, concurrency cap and goodput apply to every
// probe). Each probe is logged as it finishes, then the capacity with
// its 95% interval and why the search stopped; the test's attributes
// carry capacity, capacity_low and capacity_high. With floor > 0 the test
// fails when the interval's lower end (the highest load that passed with
// confidence) is below it, the CI gate "capacity >= 12 req/s":
//
//	res := benchtest.SearchCapacity(t, "workloads/examples/smoke.json", capacity.Config{
//		SLOs: slos, MaxErrorRate: 0.01, Start: 4, ProbeRequests: 50}, 12)
//
// A workload that does not load, a bad Config or a server that cannot be
// reached fails t at once; the Result (capacity.json's content) is
// returned.
func SearchCapacity(t *testing.T, path string, cfg capacity.Config, floor float64, opts ...Option) capacity.Result {
	t.Helper()
	c, err := resolve(opts)
	if err != nil {
		t.Fatalf("benchtest: configuration: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("benchtest: %v", err)
	}
	w, err := workloads.Load(paths.ExpandHome(path))
	if err != nil {
		t.Fatalf("benchtest: workload did not load: %v", err)
	}
	var base runner.Load
	if c.load != nil {
		base = *c.load
	}
	if base.Goodput == nil {
		base.Goodput = c.goodput
	}
	r := newRunner(t, c, max(64, base.MaxConcurrency, int(cfg.Max)))
	if cfg.Goodput == nil {
		cfg.Goodput = base.Goodput
	}
	if cfg.OnProbe == nil {
		cfg.OnProbe = func(p capacity.Probe) { t.Logf("benchtest: %s", p) }
	}
	res, err := capacity.Search(t.Context(), r.CapacityProbe(w, runner.RunOptions{Tags: c.tags}, base, nil), cfg)
	if err != nil {
		t.Fatalf("benchtest: capacity search: %v", err)
	}
	t.Logf("benchtest: capacity %s (%s), %d probes; %s: stopped because %s", res.Headline(), res.Interval.Method, len(res.Probes), res.Status, res.Reason)
	if res.Measured {
		t.Attr("capacity", formatAttr(res.Capacity))
	}
	if !math.IsNaN(res.Interval.Low) {
		t.Attr("capacity_low", formatAttr(res.Interval.Low))
	}
	if !math.IsNaN(res.Interval.High) {
		t.Attr("capacity_high", formatAttr(res.Interval.High))
	}
	if floor > 0 {
		if err := res.AtLeast(floor); err != nil {
			t.Errorf("benchtest: %v", err)
		}
	}
	return res
}
