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
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// server is a synthetic server of the given capacity (req/s or streams):
// below it every request's TTFT is 100 ms, above it TTFT grows by 50 ms
// per unit of overload; TPOT is 10 ms; no request fails. Its samples
// are identical, so every interval is a point and a probe is decided at
// its target.
func server(limit float64) capacity.ProbeFunc {
	return serverWith(limit, func(int, *loadgen.Sample) {})
}

// serverWith is server with each sample passed through edit.
func serverWith(limit float64, edit func(load int, s *loadgen.Sample)) capacity.ProbeFunc {
	return func(ctx context.Context, spec capacity.ProbeSpec, obs capacity.Observer) (*loadgen.Run, error) {
		ttft := 100.0
		if spec.Load > limit {
			ttft += 50 * (spec.Load - limit)
		}
		n := max(spec.Requests, 1)
		samples := make([]loadgen.Sample, n)
		for i := range samples {
			at := time.Duration(float64(i) / spec.Load * float64(time.Second))
			samples[i] = loadgen.Sample{Index: i, Sent: at, Scheduled: at, TTFTms: ttft, E2ELms: ttft + 100,
				TPOTms: 10, GenTPS: 100, CompletionTokens: 11, HasOutput: true}
			edit(int(spec.Load), &samples[i])
		}
		return emit(ctx, obs, samples), nil
	}
}

// exprs is the thresholds as written.
func exprs(ths []results.Threshold) []string {
	var out []string
	for _, th := range ths {
		out = append(out, th.Expr)
	}
	return out
}

func slos(t *testing.T, exprs ...string) []results.Threshold {
	t.Helper()
	ths, err := results.ParseThresholds(exprs...)
	require.NoError(t, err, "thresholds")
	return ths
}

// A capacity of 37 req/s with "ttft_p95_ms <= 500" fails above 45 (100 +
// 50 × 8 = 500 passes at 45). Ramp 1, 2, …, 32 pass, 64 fails; bisection
// between 32 and 64 to 5% ends within 5% below 45.
func TestSearchFindsCapacity(t *testing.T) {
	var printed []string
	cfg := capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 500"), Start: 1, Precision: 0.05}, OnProbe: func(p results.CapacityProbe) { printed = append(printed, p.String()) }}
	res, err := capacity.Search(context.Background(), server(37), cfg)
	require.NoError(t, err, "search")
	assert.Equal(t, capacity.StatusFound, res.Status, "found")
	assert.True(t, res.Measured, "measured")
	assert.Equal(t, 44.0, res.Interval.Low, "lower end: the highest confident pass")
	assert.Equal(t, 46.0, res.Interval.High, "upper end: the lowest confident failure")
	assert.Equal(t, capacity.MethodBracket, res.Interval.Method, "method named")
	assert.InDelta(t, 45, res.Capacity, 1e-6, "interpolated where TTFT p95 crosses 500 between 44 (450 ms) and 46 (550 ms), over their achieved rates: 45")
	assert.LessOrEqual(t, len(res.Probes), cfg.MaxProbes(), "bounded probe count")
	assert.Equal(t, 11+5, cfg.MaxProbes(), "ramp 1..1024 is 11 probes, bisection to 5% at most 5")
	assert.Equal(t, []float64{1, 2, 4, 8, 16, 32, 64}, loads(res.Probes[:7]), "ramp doubles")
	require.Len(t, printed, len(res.Probes), "every probe printed as it finished")
	assert.Equal(t, "probe 1: 1 req/s: pass: 100 measured after 12 warm-up, achieved 1.00 req/s, ttft p95 100.0 ms (95% CI 100–100), tpot p95 10.0 ms, e2el p95 200.0 ms, errors 0.00%, 112 requests in 111.2s (0 cut short when it stopped, left out)"[:150], printed[0][:150], "probe line")
	assert.Contains(t, printed[6], "probe 7: 64 req/s: FAIL (ttft_p95_ms = 1450, want <= 500, 95% CI 1450–1450)", "failing probe line names the threshold, value and interval")
	assert.Equal(t, []string{"ttft_p95_ms <= 500", "error_rate <= 0"}, exprs(res.SLOs), "the SLOs, error rate last")
	for i, p := range res.Probes {
		assert.Equal(t, i+1, p.Number, "numbered from 1")
		assert.Equal(t, p.Load <= 45, p.Pass, "probe at %v", p.Load)
		assert.Equal(t, 100, p.Target, "a p95 SLO's target: 5 requests beyond it")
		assert.GreaterOrEqual(t, p.Summary.Measured, 100, "decided at the target: %v", p.Load)
		assert.Less(t, p.Summary.Measured, 120, "soon after it: %v", p.Load)
		assert.Equal(t, 0, p.Extended, "no extension needed")
	}
	assert.Contains(t, res.Reason, "are within the precision 0.05", "reason")
	assert.Equal(t, "45 req/s, 95% CI 44–46 req/s", res.Headline(), "headline")
}

func loads(ps []results.CapacityProbe) []float64 {
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
		cfg := capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 100"), Start: 1, Max: 1024, Precision: 0.1}}
		res, err := capacity.Search(context.Background(), server(c), cfg)
		require.NoError(t, err, "capacity %v", c)
		assert.LessOrEqual(t, len(res.Probes), cfg.MaxProbes(), "capacity %v: bounded", c)
		assert.LessOrEqual(t, res.Interval.Low, c, "capacity %v: lower end not above", c)
		assert.GreaterOrEqual(t, res.Interval.Low, c/1.1, "capacity %v: within 10%%", c)
		assert.LessOrEqual(t, res.Capacity, res.Interval.High, "capacity %v: estimate inside its interval", c)
	}
}

func TestSearchFirstProbeFails(t *testing.T) {
	res, err := capacity.Search(context.Background(), server(0.5), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 100"), Start: 1}})
	require.NoError(t, err, "a failing server is an answer, not an error")
	assert.False(t, res.Measured, "no capacity")
	assert.True(t, math.IsNaN(res.Interval.Low), "no lower end")
	assert.Equal(t, 1.0, res.Interval.High, "below the first probe")
	assert.Equal(t, capacity.StatusFirstFailed, res.Status, "status")
	assert.Equal(t, "even the first probe, at 1 req/s, did not pass (fail): ttft_p95_ms = 125, want <= 100, 95% CI 125–125", res.Reason, "reason names the threshold")
	assert.Len(t, res.Probes, 1, "one probe")
	assert.Equal(t, "none (no probe passed), 95% CI 0–1 req/s", res.Headline(), "headline")
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), `{"capacity_rps":null,"by":"rate","interval":{"low":null,"high":1,"confidence":0.95,`), "null, not 0: %s", b[:90])
}

func TestSearchMaxReached(t *testing.T) {
	cfg := capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 100"), Start: 2, Max: 20}}
	res, err := capacity.Search(context.Background(), server(1000), cfg)
	require.NoError(t, err)
	assert.Equal(t, capacity.StatusMaxReached, res.Status, "status")
	assert.Equal(t, 20.0, res.Capacity, "capped at max")
	assert.True(t, math.IsNaN(res.Interval.High), "no upper end: nothing failed")
	assert.Equal(t, []float64{2, 4, 8, 16, 20}, loads(res.Probes), "the ramp ends exactly at max")
}

// Errors count through the max error rate: a server that fails 2% of
// requests above 30 req/s passes "error_rate <= 0.05" but not the
// default 0.
func TestSearchErrorRate(t *testing.T) {
	flaky := serverWith(1000, func(load int, s *loadgen.Sample) {
		if load > 30 && s.Index%50 == 7 {
			s.Kind, s.Err = results.KindHTTP5xx, errors.New("500")
		}
	})
	strict, err := capacity.Search(context.Background(), flaky, capacity.Config{CapacitySearch: results.CapacitySearch{Max: 100, Precision: 0.05}})
	require.NoError(t, err)
	assert.InDelta(t, 30, strict.Interval.Low, 1.5, "no errors tolerated: capacity at 30")
	assert.Contains(t, strict.Probes[len(strict.Probes)-1].Failed[0]+strict.Reason, "error_rate", "error rate named")
	lenient, err := capacity.Search(context.Background(), flaky, capacity.Config{CapacitySearch: results.CapacitySearch{Max: 100, MaxErrorRate: 0.05}})
	require.NoError(t, err)
	assert.Equal(t, 100.0, lenient.Capacity, "2% within 5%")
}

// Concurrency searches are over whole numbers and end at adjacent ones.
func TestSearchByConcurrency(t *testing.T) {
	var specs []capacity.ProbeSpec
	probe := func(ctx context.Context, spec capacity.ProbeSpec, obs capacity.Observer) (*loadgen.Run, error) {
		specs = append(specs, spec)
		return server(13)(ctx, spec, obs)
	}
	cfg := capacity.Config{CapacitySearch: results.CapacitySearch{By: capacity.ByConcurrency, SLOs: slos(t, "ttft_p95_ms <= 100"), Precision: 0.01, Max: 64}}
	res, err := capacity.Search(context.Background(), probe, cfg)
	require.NoError(t, err)
	assert.Equal(t, 13.0, res.Interval.Low, "exact for whole numbers")
	assert.Equal(t, 14.0, res.Interval.High, "adjacent")
	assert.Equal(t, 13.0, res.Capacity, "a whole number")
	assert.LessOrEqual(t, len(res.Probes), cfg.MaxProbes(), "bounded")
	for _, s := range specs {
		assert.Equal(t, s.Load, math.Floor(s.Load), "whole concurrency %v", s.Load)
		assert.Equal(t, max(100, 8*int(s.Load)), s.Target, "each stream sends at least 8 requests")
	}
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), `{"capacity_concurrency":13,"by":"concurrency",`), "capacity key: %s", b[:60])
	assert.Contains(t, string(b), `{"concurrency":1,"number":1,"planned_requests":890,"target":100,"verdict":"pass","pass":true,`, "probe key")
}

// The probe's target: what the SLOs' percentiles need, raised to rate ×
// ProbeDuration, the most it sends is four times the target (two
// extensions) plus the warm-up.
func TestProbeLength(t *testing.T) {
	var specs []capacity.ProbeSpec
	probe := func(ctx context.Context, spec capacity.ProbeSpec, obs capacity.Observer) (*loadgen.Run, error) {
		specs = append(specs, spec)
		return server(100)(ctx, spec, obs)
	}
	_, err := capacity.Search(context.Background(), probe, capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 100"), ProbeRequests: 20, ProbeDuration: 10 * time.Second, Start: 1, Max: 8}})
	require.NoError(t, err)
	got := map[float64][2]int{}
	for _, s := range specs {
		got[s.Load] = [2]int{s.Target, s.Requests}
	}
	assert.Equal(t, [2]int{20, 179}, got[1], "1 req/s × 10 s = 10 < 20: ProbeRequests; at most ⌈160 / 0.9⌉ + 1")
	assert.Equal(t, [2]int{40, 357}, got[4], "4 req/s × 10 s = 40")
	assert.Equal(t, [2]int{80, 713}, got[8], "8 req/s × 10 s = 80")
	for th, want := range map[string]int{"ttft_p95_ms <= 1": 100, "ttft_p99_ms <= 1": 500, "tpot_p50_ms <= 1": 50, "ttft_mean_ms <= 1": 50, "e2el_p99.9_s <= 1": 5000} {
		assert.Equal(t, want, capacity.TargetRequests(slos(t, th)), th)
	}
}

func TestSearchProbeErrorAndCancel(t *testing.T) {
	boom := errors.New("connection refused")
	n := 0
	probe := func(ctx context.Context, spec capacity.ProbeSpec, obs capacity.Observer) (*loadgen.Run, error) {
		if n++; n == 3 {
			return nil, boom
		}
		return server(100)(ctx, spec, obs)
	}
	res, err := capacity.Search(context.Background(), probe, capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 100"), Start: 1}})
	require.ErrorIs(t, err, boom, "probe error returned")
	assert.EqualError(t, err, "capacity: probe at 4 req/s: connection refused", "names the load")
	assert.Equal(t, capacity.StatusStopped, res.Status, "stopped")
	assert.Equal(t, 2.0, res.Interval.Low, "highest pass so far")
	assert.Len(t, res.Probes, 2, "the probes that finished")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = capacity.Search(ctx, server(100), capacity.Config{})
	require.ErrorIs(t, err, context.Canceled, "cancelled")
}

func TestConfigErrors(t *testing.T) {
	for want, cfg := range map[string]capacity.Config{
		`by "rps": want "rate" or "concurrency"`:               {CapacitySearch: results.CapacitySearch{By: "rps"}},
		"start -1: want a finite load > 0":                     {CapacitySearch: results.CapacitySearch{Start: -1}},
		"max 5: want a finite load >= start 10":                {CapacitySearch: results.CapacitySearch{Start: 10, Max: 5}},
		"max error rate 2: want a fraction in [0, 1]":          {CapacitySearch: results.CapacitySearch{MaxErrorRate: 2}},
		"precision 1.5: want a fraction in (0, 1)":             {CapacitySearch: results.CapacitySearch{Precision: 1.5}},
		"probe requests -1: want >= 0":                         {CapacitySearch: results.CapacitySearch{ProbeRequests: -1}},
		"probe requests 5: want at least 10":                   {CapacitySearch: results.CapacitySearch{ProbeRequests: 5}},
		`slo 0 ("ttft < 1"): not parsed`:                       {CapacitySearch: results.CapacitySearch{SLOs: []results.Threshold{{Expr: "ttft < 1"}}}},
		"concurrency start 0.5, max 1024: want whole numbers":  {CapacitySearch: results.CapacitySearch{By: capacity.ByConcurrency, Start: 0.5}},
		`slo "ttft_p95_ms >= 200": a lower limit on ttft`:      {CapacitySearch: results.CapacitySearch{SLOs: slosOf("ttft_p95_ms >= 200")}},
		`slo "error_rate > 0.1": a lower limit on error_rate`:  {CapacitySearch: results.CapacitySearch{SLOs: slosOf("error_rate > 0.1")}},
		`slo "gen_tps_p50 <= 10": an upper limit on gen_tps`:   {CapacitySearch: results.CapacitySearch{SLOs: slosOf("gen_tps_p50 <= 10")}},
		`slo "ttft_p100_ms <= 200": p100 is the maximum`:       {CapacitySearch: results.CapacitySearch{SLOs: slosOf("ttft_p100_ms <= 200")}},
		`slo "e2el_mean_s == 2": an equality has no direction`: {CapacitySearch: results.CapacitySearch{SLOs: slosOf("e2el_mean_s == 2")}},
		"fit: the fit searches by rate only":                   {CapacitySearch: results.CapacitySearch{By: capacity.ByConcurrency, Fit: true}},
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
	failing := serverWith(1000, func(_ int, s *loadgen.Sample) {
		s.Kind, s.Err = results.KindHTTP5xx, errors.New("500")
	})
	res, err := capacity.Search(context.Background(), failing, capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 100"), ProbeRequests: 10}})
	require.NoError(t, err)
	b, err := json.MarshalIndent(res, "", " ")
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Nil(t, m["capacity_rps"], "no probe passed: null")
	assert.Equal(t, "first_probe_failed", m["status"], "status")
	probe := m["probes"].([]any)[0].(map[string]any)
	assert.Equal(t, 1.0, probe["rate"], "rate key")
	assert.Equal(t, 1.0, probe["number"], "numbered from 1")
	assert.Equal(t, false, probe["pass"], "pass")
	assert.Equal(t, "fail", probe["verdict"], "verdict")
	st := probe["stats"].(map[string]any)
	assert.Nil(t, st["ttft_p95_ms"], "no samples: null")
	assert.Nil(t, st["ttft_p95_ci"], "no samples: no interval")
	assert.Nil(t, st["goodput"], "no goodput SLO: null")
	assert.Equal(t, 1.0, st["error_rate"], "error rate")
	slo := probe["slos"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"threshold": "ttft_p95_ms <= 100", "measured": nil, "pass": false}, slo, "unmeasurable threshold")
	assert.Equal(t, []any{"ttft_p95_ms: no samples, want <= 100", "error_rate = 1, want <= 0, 95% CI 0.6637–1",
		"stopped early: 10 of 10 requests failed (error rate 100.0%, 95% CI 69.2%–100.0%), over the limit 0 with confidence"}, probe["failed"], "failed list: the thresholds, then why it stopped early")

	var back results.Capacity
	require.NoError(t, json.Unmarshal(b, &back))
	again, err := json.MarshalIndent(back, "", " ")
	require.NoError(t, err)
	assert.JSONEq(t, string(b), string(again), "round trip")

	found, err := capacity.Search(context.Background(), server(37), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 500"), Precision: 0.05}})
	require.NoError(t, err)
	b, err = json.Marshal(found)
	require.NoError(t, err)
	var back2 results.Capacity
	require.NoError(t, json.Unmarshal(b, &back2))
	assert.Equal(t, found.Headline(), back2.Headline(), "capacity and interval round-trip")
	p := back2.Probes[0]
	require.NotNil(t, p.SLOs[0].CI, "each probe's interval is in the JSON")
	assert.Equal(t, 100.0, p.SLOs[0].CI.High, "the interval's ends")
}

// An older capacity.json (0-based "index", no interval, no verdict) still
// reads: numbered from 1, the interval from its probes.
func TestResultJSONOlder(t *testing.T) {
	old := `{"capacity_rps":4,"by":"rate","status":"found","reason":"r","slos":["ttft_p95_ms <= 5"],"probes":[
	 {"rate":4,"index":0,"pass":true,"failed":[],"slos":[],"stats":{}},
	 {"rate":8,"index":1,"pass":false,"failed":["x"],"slos":[],"stats":{}}]}`
	var r results.Capacity
	require.NoError(t, json.Unmarshal([]byte(old), &r))
	assert.Equal(t, []int{1, 2}, []int{r.Probes[0].Number, r.Probes[1].Number}, "numbered from 1")
	assert.Equal(t, capacity.VerdictFail, r.Probes[1].Verdict, "verdict from pass")
	assert.Equal(t, "4 req/s, 95% CI 4–8 req/s", r.Headline(), "interval from the probes")
}

func TestAtLeast(t *testing.T) {
	res, err := capacity.Search(context.Background(), server(37), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 500"), Start: 1, Precision: 0.05}})
	require.NoError(t, err)
	require.NoError(t, res.AtLeast(44), "the lower end 44 req/s reaches a floor of 44")
	err = res.AtLeast(45)
	require.Error(t, err, "the estimate reaches 45, but the lower end is not")
	assert.Equal(t, "capacity 45 req/s, 95% CI 44–46 req/s is below the floor 45 req/s: the lower end of its interval is what must reach it (found: the highest passing load 44 req/s and the lowest not passing 46 req/s are within the precision 0.05)", err.Error())
}

func TestParseBy(t *testing.T) {
	for in, want := range map[string]string{"": capacity.ByRate, "rate": capacity.ByRate, " Concurrency ": capacity.ByConcurrency} {
		got, err := capacity.ParseBy(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := capacity.ParseBy("rps")
	require.EqualError(t, err, `capacity: by "rps": want rate or concurrency`)
}

// A probe's TTFT p95 interval is the one its ttft_p95 SLO was judged by,
// in ms whatever the SLO's unit: for 100 TTFTs of 51.8–52.8 ms in slow
// waves the plain interval is open above, the SLO's (autocorrelation at
// its 2 ms resolution) is not, and the probe line must not say "pass …
// CI 51.8–inf".
func TestSummarizeUsesTheSLOsInterval(t *testing.T) {
	values := make([]float64, 100)
	for i := range values {
		values[i] = 52.3 + 0.5*math.Sin(float64(i)/8)
	}
	st := results.LoadStats{TTFT: results.NewDist(values)}
	plain := capacity.Summarize(st, nil)
	require.NotNil(t, plain.TTFTp95CI)
	require.True(t, math.IsNaN(plain.TTFTp95CI.High), "setup: without an SLO the interval is open above")

	outcomes := summary.Evaluate(st, slos(t, "ttft_p95_s <= 0.2"))
	require.True(t, outcomes[0].ConfidentPass(), "setup: the SLO passes with confidence")
	ps := capacity.Summarize(st, outcomes)
	require.False(t, math.IsNaN(ps.TTFTp95CI.High), "the SLO's interval, bounded")
	assert.InDelta(t, outcomes[0].CI.High*1000, ps.TTFTp95CI.High, 1e-9, "in ms")
	assert.Less(t, ps.TTFTp95CI.High, 60.0, "a TTFT in ms, not s")
}

// slosOf parses exprs, panicking on an error (the table's expressions
// are all well-formed).
func slosOf(exprs ...string) []results.Threshold {
	ths, err := results.ParseThresholds(exprs...)
	if err != nil {
		panic(err)
	}
	return ths
}

// A probe whose errors exceed the limit with confidence is stopped
// early, a failure saying why, rather than run to its target: above 20
// req/s the synthetic server answers every third request with 429. One
// error in 100 against a limit of 5% is judged at the target as before;
// against a limit of 0 it stops the probe at once (it can never pass).
func TestProbeStopsOnErrors(t *testing.T) {
	probe := serverWith(1000, func(load int, s *loadgen.Sample) {
		if load > 20 && s.Index%3 == 0 {
			s.Err, s.Kind = errors.New("HTTP 429"), results.KindHTTP4xx
		}
	})
	var printed []string
	cfg := capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 500"), MaxErrorRate: 0.05, Start: 40, Max: 40},
		OnProbe: func(p results.CapacityProbe) { printed = append(printed, p.String()) }}
	res, err := capacity.Search(context.Background(), probe, cfg)
	require.NoError(t, err)
	require.Len(t, res.Probes, 1)
	p := res.Probes[0]
	assert.Equal(t, capacity.VerdictFail, p.Verdict, "a failure: %s", p)
	assert.Less(t, p.Summary.Sent, 30, "stopped after a few dozen requests, not its %d", p.Requests)
	assert.Contains(t, printed[0], "stopped early: ", "the probe line says so")
	assert.Contains(t, printed[0], "stopped early: 4 of 10 requests failed (error rate 40.0%, 95% CI 12.2%–73.8%)", "with the error rate and its interval")
	assert.Contains(t, printed[0], "over the limit 0.05 with confidence", "and the limit")

	few := serverWith(1000, func(load int, s *loadgen.Sample) {
		if s.Index == 50 {
			s.Err, s.Kind = errors.New("HTTP 500"), results.KindHTTP5xx
		}
	})
	cfg = capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 500"), MaxErrorRate: 0.05, Start: 10, Max: 10}}
	res, err = capacity.Search(context.Background(), few, cfg)
	require.NoError(t, err)
	require.Len(t, res.Probes, 1)
	assert.NotContains(t, strings.Join(res.Probes[0].Failed, "; "), "stopped early", "one error in 100 does not stop a probe early")
	assert.GreaterOrEqual(t, res.Probes[0].Summary.Measured, 100, "it ran to its target")

	cfg.MaxErrorRate = 0
	res, err = capacity.Search(context.Background(), few, cfg)
	require.NoError(t, err)
	require.Len(t, res.Probes, 1)
	assert.Contains(t, strings.Join(res.Probes[0].Failed, "; "), "stopped early: 1 of 51 requests failed", "a limit of 0 fails on the first error")
	assert.Equal(t, capacity.VerdictFail, res.Probes[0].Verdict)
}
