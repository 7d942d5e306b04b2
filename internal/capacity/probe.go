package capacity

import (
	"fmt"
	"math"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// Summarize picks a probe's key statistics out of st (the measured
// requests' statistics) and the outcomes of its SLOs: the TTFT p95's
// interval is the one a ttft_p95 SLO among them was judged by (taken at
// the threshold's resolution), else st's own.
func Summarize(st results.LoadStats, outcomes []results.SLOResult) results.CapacityProbeStats {
	ps := results.CapacityProbeStats{
		Requests: st.Requests, Succeeded: st.Succeeded, Failed: st.Failed, Dropped: st.Dropped, Late: st.Late,
		DurationS: st.Duration.Seconds(), RequestThroughput: st.RequestThroughput,
		OutputThroughput: st.OutputThroughput, ErrorRate: st.ErrorRate, PeakInFlight: st.PeakInFlight,
		TTFTp95ms: finite(st.TTFT.P95), TPOTp95ms: finite(st.TPOT.P95), E2ELp95ms: finite(st.E2EL.P95),
		LagP99ms: finite(st.Lag.P99),
	}
	if st.TTFT.Count > 0 {
		iv := st.TTFT.PercentileInterval(95, results.DefaultConfidence)
		ps.TTFTp95CI = &iv
	}
	for _, o := range outcomes {
		if o.Metric == "ttft" && o.Stat == "p95" && o.CI != nil {
			iv := *o.CI // in the threshold's unit: to ms
			iv.Low, iv.High = iv.Low*o.Scale(), iv.High*o.Scale()
			ps.TTFTp95CI = &iv
			break
		}
	}
	if st.GoodputSLO != nil {
		g := st.Goodput
		ps.Goodput = &g
	}
	return ps
}

// finite is &v, or nil for NaN (no samples) and infinities.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// newProbe judges probe spec from its run: the analysis the monitor
// stopped it with, else one over the run's complete requests (cut: the
// search ended the probe, so requests cancelled in flight are left out),
// and its measured requests (nil for a probe stopped as saturated or on
// its errors: no steady state was measured).
func newProbe(spec ProbeSpec, run *loadgen.Run, mon *monitor, ths []results.Threshold, cut bool) (results.CapacityProbe, []loadgen.Sample) {
	samples := completePrefix(run, cut)
	if mon.result != nil && mon.saturated == "" && mon.errorStop == "" && len(samples) > mon.result.prefix {
		// The verdict is the one the probe was stopped with: over the
		// requests the monitor judged, not those that completed after.
		samples = samples[:mon.result.prefix]
	}
	a := analyze(samples, ths, mon.opts, mon.minWarm, mon.openLoop)
	a.st.Mode, a.st.Unsent = run.Mode, run.Unsent
	p := results.CapacityProbe{Number: spec.Index + 1, By: spec.By, Load: spec.Load, Requests: spec.Requests, Duration: spec.Duration,
		Target: spec.Target, Verdict: a.verdict, Saturation: mon.saturated, SLOs: make([]results.SLOResult, len(a.outcomes)),
		Stats: a.st}
	for i, t := range mon.targets {
		if len(a.measured) >= t {
			p.Extended = i
		}
	}
	if mon.saturated != "" {
		p.Verdict = VerdictSaturated
	}
	p.Pass = p.Verdict == VerdictPass
	p.PointPass = p.Verdict != VerdictSaturated
	for _, o := range a.outcomes {
		p.PointPass = p.PointPass && o.Pass
	}
	p.Summary = Summarize(a.st, a.outcomes)
	p.Summary.Sent = len(run.Samples)
	p.Summary.Warmup, p.Summary.Measured = a.warmup, len(a.measured)
	p.Summary.BusyCycles = a.cycles
	p.Summary.Cut = len(run.Samples) - len(samples)
	if n := len(a.measured); n >= 2 {
		first, last := a.measured[0].Sent, a.measured[0].Sent
		for _, s := range a.measured {
			first, last = min(first, s.Sent), max(last, s.Sent)
		}
		if span := (last - first).Seconds(); span > 0 {
			r := float64(n-1) / span
			p.Summary.AchievedRate = &r
		}
	}
	p.Summary.DurationS = run.Duration.Seconds()
	for i, o := range a.outcomes {
		r := o
		r.Pass = o.ConfidentPass() // capacity.json's pass is with confidence
		p.SLOs[i] = r
		if !o.ConfidentPass() {
			p.Failed = append(p.Failed, describe(o))
		}
	}
	if p.Verdict == VerdictInconclusive && len(p.Failed) == 0 && mon.openLoop && a.cycles < MinBusyCycles {
		// Every threshold held with confidence, over too short a stretch
		// of the queue to speak for its steady state (analyze).
		p.Failed = append(p.Failed, fmt.Sprintf("every threshold held, over %d busy cycles of the %d a pass needs", a.cycles, MinBusyCycles))
	}
	if mon.errorStop != "" {
		// Stopped on its errors (monitor.errorsOver): a failure, whatever
		// the latency of the requests that succeeded.
		p.Verdict, p.Pass, p.PointPass = VerdictFail, false, false
		p.Failed = append(p.Failed, "stopped early: "+mon.errorStop)
	}
	if mon.saturated != "" || mon.errorStop != "" {
		return p, nil
	}
	return p, a.measured
}

// describe is an outcome with its interval: "ttft_p95_ms = 612.4, want
// <= 500, 95% CI 580.2–650.9", and "(not conclusive)" when the interval
// reaches across the limit.
func describe(o results.SLOResult) string {
	s := o.String()
	if o.CI != nil {
		s += ", " + o.CI.String()
		if !o.Conclusive() {
			s += " (not conclusive)"
		}
	}
	return s
}
