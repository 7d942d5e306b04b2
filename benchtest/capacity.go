package benchtest

import (
	"math"
	"testing"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// SearchCapacity runs a capacity search with the workload at path as the
// request mix: each probe is a load run of its cases (every request
// judged by its case's checks) at the probe's rate or concurrency, on the
// configured server (the fixture without a URL; WithLoad's burstiness,
// seed, concurrency cap and goodput apply to every probe). search says
// how to search (results.CapacitySearch; its zero fields are defaults,
// Fit: true is the CLI's --fit);
// the SLOs every probe must hold with confidence are the workload's
// defaults.slo, then search.SLOs, then the WithSLO thresholds, the
// simplest way to give them (the CLI's capacity adds --slo to
// defaults.slo alike):
//
//	res := benchtest.SearchCapacity(t, "workloads/examples/smoke.json",
//		results.CapacitySearch{Start: 4}, 12, benchtest.WithSLO("ttft_p95_ms <= 200"))
//
// Each probe measures the steady state (its warm-up left out) and gives
// every percentile a 95% interval; it is logged as it finishes, then the
// capacity with its interval and why the search stopped; the test's
// attributes carry capacity, capacity_low and capacity_high. With floor >
// 0 the test fails when the interval's lower end (the highest load that
// passed with confidence) is below it, the CI gate "capacity >= 12 req/s"
// (results.Capacity.AtLeast).
//
// A workload that does not load, a threshold that does not parse, a bad
// search or a server that cannot be reached fails t at once; the result
// is returned, capacity.json's content (json.Marshal writes the file).
func SearchCapacity(t *testing.T, path string, search results.CapacitySearch, floor float64, opts ...Option) results.Capacity {
	t.Helper()
	c, err := resolve(opts)
	if err != nil {
		say(t).Fatalf("benchtest: configuration: %s", linesOf(err))
	}
	refuseInapplicable(t, c, doorSearchCapacity, map[string]string{
		"WithRepetitions": "each probe sends as many requests as its verdict needs (results.CapacitySearch.ProbeRequests)",
	})
	noCache(t, c)
	w, err := workloads.Load(paths.ExpandHome(path))
	if err != nil {
		say(t).Fatalf("benchtest: workload did not load: %s", linesOf(err))
	}
	// The workload's defaults.slo hold in every probe too, as a run of it
	// judges them, then search.SLOs and WithSLO's.
	search.SLOs = append(append([]results.Threshold(nil), search.SLOs...), c.thresholds...)
	cfg := capacity.WithWorkloadSLOs(capacity.Config{CapacitySearch: search, Client: clientLimits}, w)
	if err := cfg.Validate(); err != nil {
		say(t).Fatalf("benchtest: %v", err)
	}
	if w, err = runner.ExpandGenerator(w); err != nil {
		say(t).Fatalf("benchtest: %v", err)
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
	cfg.OnStartFrom = func(start float64, why string) { say(t).Logf("benchtest: starting at %g req/s: %s", start, why) }
	cfg.OnProbe = func(p results.CapacityProbe) { say(t).Logf("benchtest: %s", p) }
	res, err := capacity.Search(t.Context(), capacity.SessionProbe(r, w, runner.RunOptions{Tags: c.tags}, base, nil), cfg)
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
	if res.Status == capacity.StatusClientLimited {
		say(t).Errorf("benchtest: capacity search: the client could not keep up: %s", res.Reason)
	}
	if floor > 0 {
		if err := res.AtLeast(floor); err != nil {
			say(t).Errorf("benchtest: %v", err)
		}
	}
	return res
}
