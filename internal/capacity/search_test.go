package capacity_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/stats"
)

// server is a synthetic server of the given capacity (req/s or streams):
// below it TTFT p95 is 100 ms, above it TTFT grows by 50 ms per unit of
// overload; TPOT is 10 ms; no request fails unless failAbove is passed.
func server(limit float64) capacity.ProbeFunc {
	return func(_ context.Context, spec capacity.ProbeSpec) (stats.Stats, error) {
		ttft := 100.0
		if spec.Load > limit {
			ttft += 50 * (spec.Load - limit)
		}
		n := max(spec.Requests, 1)
		dur := time.Duration(float64(n) / spec.Load * float64(time.Second))
		return stats.Stats{Requests: n, Succeeded: n, Duration: dur,
			TTFT: stats.NewDist([]float64{ttft}), TPOT: stats.NewDist([]float64{10}),
			E2EL: stats.NewDist([]float64{ttft + 100}), Lag: stats.NewDist([]float64{0.1}),
			RequestThroughput: float64(n) / dur.Seconds(), Errors: map[stats.ErrorKind]int{}}, nil
	}
}

func slos(t *testing.T, exprs ...string) []stats.Threshold {
	t.Helper()
	ths, err := stats.ParseThresholds(exprs...)
	require.NoError(t, err, "thresholds")
	return ths
}

// A capacity of 37 req/s with "ttft_p95_ms <= 500" fails above 45 (100 +
// 50 × 8 = 500 passes at 45). Ramp 1, 2, …, 32 pass, 64 fails; bisection
// between 32 and 64 to 5% ends within 5% below 45.
func TestSearchFindsCapacity(t *testing.T) {
	var printed []string
	cfg := capacity.Config{SLOs: slos(t, "ttft_p95_ms <= 500"), Precision: 0.05,
		OnProbe: func(p capacity.Probe) { printed = append(printed, p.String()) }}
	res, err := capacity.Search(context.Background(), server(37), cfg)
	require.NoError(t, err, "search")
	assert.Equal(t, capacity.StatusFound, res.Status, "found")
	assert.LessOrEqual(t, res.Capacity, 45.0, "never above the true limit")
	assert.GreaterOrEqual(t, res.Capacity, 45/1.05, "within the precision below it")
	assert.LessOrEqual(t, len(res.Probes), cfg.MaxProbes(), "bounded probe count")
	assert.Equal(t, 11+5, cfg.MaxProbes(), "ramp 1..1024 is 11 probes, bisection to 5% at most 5")
	assert.Equal(t, []float64{1, 2, 4, 8, 16, 32, 64}, loads(res.Probes[:7]), "ramp doubles")
	require.Len(t, printed, len(res.Probes), "every probe printed as it finished")
	assert.Equal(t, "probe 1: 1 req/s: pass: achieved 1.00 req/s, ttft p95 100.0 ms, tpot p95 10.0 ms, e2el p95 200.0 ms, errors 0.00%, 50 requests in 50.0s", printed[0], "probe line")
	assert.Contains(t, printed[6], "probe 7: 64 req/s: FAIL (ttft_p95_ms = 1450, want <= 500)", "failing probe line names the threshold and value")
	assert.Equal(t, []string{"ttft_p95_ms <= 500", "error_rate <= 0"}, res.SLOs, "the SLOs, error rate last")
	for _, p := range res.Probes {
		assert.Equal(t, p.Load <= 45, p.Pass, "probe at %v", p.Load)
	}
	assert.Contains(t, res.Reason, "highest passing load", "reason")
}

func loads(ps []capacity.Probe) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = p.Load
	}
	return out
}

// The probe-count bound holds for every capacity, including ones at the
// ends of the range, and the answer is always within the precision.
func TestSearchBoundedEverywhere(t *testing.T) {
	for _, c := range []float64{1.5, 3, 7.7, 100, 511, 1000} {
		cfg := capacity.Config{SLOs: slos(t, "ttft_p95_ms <= 100"), Start: 1, Max: 1024, Precision: 0.1}
		res, err := capacity.Search(context.Background(), server(c), cfg)
		require.NoError(t, err, "capacity %v", c)
		assert.LessOrEqual(t, len(res.Probes), cfg.MaxProbes(), "capacity %v: bounded", c)
		assert.LessOrEqual(t, res.Capacity, c, "capacity %v: not above", c)
		assert.GreaterOrEqual(t, res.Capacity, c/1.1, "capacity %v: within 10%%", c)
	}
}

func TestSearchFirstProbeFails(t *testing.T) {
	res, err := capacity.Search(context.Background(), server(0.5), capacity.Config{SLOs: slos(t, "ttft_p95_ms <= 100")})
	require.NoError(t, err, "a failing server is an answer, not an error")
	assert.Equal(t, 0.0, res.Capacity, "no capacity")
	assert.Equal(t, capacity.StatusFirstFailed, res.Status, "status")
	assert.Equal(t, "even the first probe, at 1 req/s, failed: ttft_p95_ms = 125, want <= 100", res.Reason, "reason names the threshold")
	assert.Len(t, res.Probes, 1, "one probe")
}

func TestSearchMaxReached(t *testing.T) {
	cfg := capacity.Config{SLOs: slos(t, "ttft_p95_ms <= 100"), Start: 2, Max: 20}
	res, err := capacity.Search(context.Background(), server(1000), cfg)
	require.NoError(t, err)
	assert.Equal(t, capacity.StatusMaxReached, res.Status, "status")
	assert.Equal(t, 20.0, res.Capacity, "capped at max")
	assert.Equal(t, []float64{2, 4, 8, 16, 20}, loads(res.Probes), "the ramp ends exactly at max")
}

// Errors count through the max error rate: a server that fails 2% of
// requests above 30 req/s passes "error_rate <= 0.05" but not the
// default 0.
func TestSearchErrorRate(t *testing.T) {
	flaky := func(ctx context.Context, spec capacity.ProbeSpec) (stats.Stats, error) {
		st, _ := server(1000)(ctx, spec)
		if spec.Load > 30 {
			st.ErrorRate = 0.02
		}
		return st, nil
	}
	strict, err := capacity.Search(context.Background(), flaky, capacity.Config{Max: 100, Precision: 0.05})
	require.NoError(t, err)
	assert.InDelta(t, 30, strict.Capacity, 1.5, "no errors tolerated: capacity at 30")
	assert.Contains(t, strict.Probes[len(strict.Probes)-1].Failed[0]+strict.Reason, "error_rate", "error rate named")
	lenient, err := capacity.Search(context.Background(), flaky, capacity.Config{Max: 100, MaxErrorRate: 0.05})
	require.NoError(t, err)
	assert.Equal(t, 100.0, lenient.Capacity, "2% within 5%")
}

// Concurrency searches are over whole numbers and end at adjacent ones.
func TestSearchByConcurrency(t *testing.T) {
	var specs []capacity.ProbeSpec
	probe := func(ctx context.Context, spec capacity.ProbeSpec) (stats.Stats, error) {
		specs = append(specs, spec)
		return server(13)(ctx, spec)
	}
	cfg := capacity.Config{By: capacity.ByConcurrency, SLOs: slos(t, "ttft_p95_ms <= 100"), Precision: 0.01, Max: 64}
	res, err := capacity.Search(context.Background(), probe, cfg)
	require.NoError(t, err)
	assert.Equal(t, 13.0, res.Capacity, "exact for whole numbers")
	assert.LessOrEqual(t, len(res.Probes), cfg.MaxProbes(), "bounded")
	for _, s := range specs {
		assert.Equal(t, s.Load, math.Floor(s.Load), "whole concurrency %v", s.Load)
		assert.Equal(t, max(50, 8*int(s.Load)), s.Requests, "each stream sends at least 8 requests")
	}
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), `{"capacity_concurrency":13,"by":"concurrency",`), "capacity key: %s", b[:60])
	assert.Contains(t, string(b), `{"concurrency":1,"index":0,"requests":50,"pass":true,`, "probe key")
}

// The stability rule: a rate probe sends max(ProbeRequests, rate ×
// ProbeDuration) requests.
func TestProbeLength(t *testing.T) {
	var specs []capacity.ProbeSpec
	probe := func(ctx context.Context, spec capacity.ProbeSpec) (stats.Stats, error) {
		specs = append(specs, spec)
		return server(100)(ctx, spec)
	}
	_, err := capacity.Search(context.Background(), probe, capacity.Config{SLOs: slos(t, "ttft_p95_ms <= 100"),
		ProbeRequests: 20, ProbeDuration: 10 * time.Second, Max: 8})
	require.NoError(t, err)
	got := map[float64]int{}
	for _, s := range specs {
		got[s.Load] = s.Requests
	}
	assert.Equal(t, 20, got[1], "1 req/s × 10 s = 10 < 20: ProbeRequests")
	assert.Equal(t, 40, got[4], "4 req/s × 10 s = 40")
	assert.Equal(t, 80, got[8], "8 req/s × 10 s = 80")
}

func TestSearchProbeErrorAndCancel(t *testing.T) {
	boom := errors.New("connection refused")
	n := 0
	probe := func(ctx context.Context, spec capacity.ProbeSpec) (stats.Stats, error) {
		if n++; n == 3 {
			return stats.Stats{}, boom
		}
		return server(100)(ctx, spec)
	}
	res, err := capacity.Search(context.Background(), probe, capacity.Config{SLOs: slos(t, "ttft_p95_ms <= 100")})
	require.ErrorIs(t, err, boom, "probe error returned")
	assert.EqualError(t, err, "capacity: probe at 4 req/s: connection refused", "names the load")
	assert.Equal(t, capacity.StatusStopped, res.Status, "stopped")
	assert.Equal(t, 2.0, res.Capacity, "highest pass so far")
	assert.Len(t, res.Probes, 2, "the probes that finished")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = capacity.Search(ctx, server(100), capacity.Config{})
	require.ErrorIs(t, err, context.Canceled, "cancelled")
}

func TestConfigErrors(t *testing.T) {
	for want, cfg := range map[string]capacity.Config{
		`by "rps": want "rate" or "concurrency"`:             {By: "rps"},
		"start -1: want a finite load > 0":                   {Start: -1},
		"max 5: want a finite load >= start 10":              {Start: 10, Max: 5},
		"max error rate 2: want a fraction in [0, 1]":        {MaxErrorRate: 2},
		"precision 1.5: want a fraction in (0, 1)":           {Precision: 1.5},
		"probe requests -1: want >= 0":                       {ProbeRequests: -1},
		`slo 0 ("ttft < 1"): not parsed`:                     {SLOs: []stats.Threshold{{Expr: "ttft < 1"}}},
		"start 0: want a finite load > 0 (concurrency >= 1)": {By: capacity.ByConcurrency, Start: 0.5},
	} {
		_, err := capacity.Search(context.Background(), server(1), cfg)
		require.Error(t, err, want)
		assert.Contains(t, err.Error(), "capacity: config: "+want, want)
		assert.Equal(t, 0, cfg.MaxProbes(), "invalid config: no probes")
	}
}

// capacity.json round-trips and has the documented keys; statistics
// without samples are null, not 0.
func TestResultJSON(t *testing.T) {
	empty := func(_ context.Context, spec capacity.ProbeSpec) (stats.Stats, error) {
		nan := stats.NewDist(nil)
		return stats.Stats{Requests: spec.Requests, Failed: spec.Requests, ErrorRate: 1, Duration: time.Second,
			TTFT: nan, TPOT: nan, E2EL: nan, Lag: stats.NewDist([]float64{1, 2}), Errors: map[stats.ErrorKind]int{"http_5xx": spec.Requests}}, nil
	}
	res, err := capacity.Search(context.Background(), empty, capacity.Config{SLOs: slos(t, "ttft_p95_ms <= 100"), ProbeRequests: 10})
	require.NoError(t, err)
	b, err := json.MarshalIndent(res, "", " ")
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, 0.0, m["capacity_rps"], "capacity key")
	assert.Equal(t, "first_probe_failed", m["status"], "status")
	probe := m["probes"].([]any)[0].(map[string]any)
	assert.Equal(t, 1.0, probe["rate"], "rate key")
	assert.Equal(t, false, probe["pass"], "pass")
	st := probe["stats"].(map[string]any)
	assert.Nil(t, st["ttft_p95_ms"], "no samples: null")
	assert.Nil(t, st["goodput"], "no goodput SLO: null")
	assert.Equal(t, 1.0, st["error_rate"], "error rate")
	slo := probe["slos"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"threshold": "ttft_p95_ms <= 100", "measured": nil, "pass": false}, slo, "unmeasurable threshold")
	assert.Equal(t, []any{"ttft_p95_ms: no samples, want <= 100", "error_rate = 1, want <= 0"}, probe["failed"], "failed list")

	var back capacity.Result
	require.NoError(t, json.Unmarshal(b, &back))
	again, err := json.MarshalIndent(back, "", " ")
	require.NoError(t, err)
	assert.JSONEq(t, string(b), string(again), "round trip")
}

func TestAtLeast(t *testing.T) {
	res, err := capacity.Search(context.Background(), server(37), capacity.Config{SLOs: slos(t, "ttft_p95_ms <= 500"), Precision: 0.05})
	require.NoError(t, err)
	require.NoError(t, res.AtLeast(40), "44 req/s passes a floor of 40")
	err = res.AtLeast(50)
	require.Error(t, err, "below 50")
	assert.Equal(t, "capacity 44 req/s is below the floor 50 req/s (found: highest passing load 44 req/s; the lowest failing was 46 req/s)", err.Error())
}

func TestParseBy(t *testing.T) {
	for in, want := range map[string]capacity.By{"": capacity.ByRate, "rate": capacity.ByRate, " Concurrency ": capacity.ByConcurrency} {
		got, err := capacity.ParseBy(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := capacity.ParseBy("rps")
	require.EqualError(t, err, `capacity: by "rps": want rate or concurrency`)
}
