package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// Probe is one probe of a search and its verdict.
type Probe struct {
	// Number is the probe's position in the search, from 1 (as the probe
	// lines print it); By and Load what it ran (req/s or streams);
	// Requests and Duration the ProbeSpec's most, Target its first look.
	Number   int
	By       By
	Load     float64
	Requests int
	Duration time.Duration
	Target   int
	// Verdict is how the probe ended; Pass is Verdict == VerdictPass.
	// PointPass reports whether every threshold held by its measured
	// value alone; the search steers by it where the verdict is
	// inconclusive (Leans).
	Verdict   Verdict
	Pass      bool
	PointPass bool
	// Extended counts the extensions the probe ran to (0: decided at its
	// target).
	Extended int
	// Saturation says why the probe was called saturated ("" when not).
	Saturation string
	// Failed describes every threshold that did not pass with confidence,
	// with its measured value and interval ("ttft_p95_ms = 612.4, want <=
	// 500, 95% CI 580.2–650.9").
	Failed []string
	// SLOs are every threshold's outcome, in Result.SLOs order, a
	// percentile's with its interval (measured null when the metric had
	// no sample).
	SLOs []results.SLOResult
	// Summary holds the probe's key statistics over its measured
	// requests.
	Summary ProbeStats
	// Stats are the measured requests' full statistics (not in the
	// JSON).
	Stats stats.Stats

	outcomes []stats.Outcome
}

// ProbeStats are a probe's key statistics as capacity.json carries them,
// over its measured requests (the warm-up left out). A statistic with no
// sample behind it (no request succeeded) is null.
type ProbeStats struct {
	// Sent counts every request the probe sent (or dropped), the warm-up
	// and those cut short when the search stopped it included; Warmup
	// and Measured split the complete ones; Cut counts the requests in
	// flight when the probe was stopped, left out.
	Sent     int `json:"sent"`
	Warmup   int `json:"warmup"`
	Measured int `json:"measured"`
	Cut      int `json:"cut"`
	// Requests counts the measured requests sent, Succeeded and Failed
	// split them; Dropped counts those the in-flight cap dropped, Late
	// those sent more than 1 ms behind schedule.
	Requests  int `json:"requests"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Dropped   int `json:"dropped"`
	Late      int `json:"late"`
	// DurationS is the probe's wall time in seconds (the run's).
	DurationS float64 `json:"duration_s"`
	// AchievedRate is the measured arrivals per second of their window
	// ((n − 1) / (last send − first send)); null for fewer than 2.
	AchievedRate *float64 `json:"achieved_rate"`
	// RequestThroughput is succeeded requests per second and
	// OutputThroughput completion tokens per second, over the measured
	// requests' window (first send to last end).
	RequestThroughput float64 `json:"request_throughput"`
	OutputThroughput  float64 `json:"output_throughput"`
	// ErrorRate is (failed + dropped) / (requests + dropped).
	ErrorRate float64 `json:"error_rate"`
	// TTFTp95ms, TPOTp95ms and E2ELp95ms are p95 latencies in ms over
	// the measured requests, TTFTp95CI the TTFT p95's interval (the one a
	// ttft_p95 SLO was judged by, when there is one); LagP99ms
	// is the p99 of the client's lag behind the schedule, in ms.
	TTFTp95ms *float64          `json:"ttft_p95_ms"`
	TTFTp95CI *results.Interval `json:"ttft_p95_ci"`
	TPOTp95ms *float64          `json:"tpot_p95_ms"`
	E2ELp95ms *float64          `json:"e2el_p95_ms"`
	LagP99ms  *float64          `json:"lag_p99_ms"`
	// Goodput is requests per second within the goodput SLO, null when
	// the probe had none (Config.Goodput).
	Goodput *float64 `json:"goodput"`
	// PeakInFlight is the most requests in flight at once among the
	// measured ones.
	PeakInFlight int `json:"peak_in_flight"`
	// BusyCycles counts the measured window's busy cycles: the arrivals
	// that found the fewest requests in flight, and the returns of that
	// count to its 10th percentile after it rose to its median (a closed
	// loop, whose count stays put, has one per request). An open-loop
	// pass needs MinBusyCycles of them.
	BusyCycles int `json:"busy_cycles"`
}

// Summarize picks a probe's key statistics out of st (the measured
// requests' statistics) and the outcomes of its SLOs: the TTFT p95's
// interval is the one a ttft_p95 SLO among them was judged by (taken at
// the threshold's resolution), else st's own.
func Summarize(st stats.Stats, outcomes []stats.Outcome) ProbeStats {
	ps := ProbeStats{
		Requests: st.Requests, Succeeded: st.Succeeded, Failed: st.Failed, Dropped: st.Dropped, Late: st.Late,
		DurationS: st.Duration.Seconds(), RequestThroughput: st.RequestThroughput,
		OutputThroughput: st.OutputThroughput, ErrorRate: st.ErrorRate, PeakInFlight: st.PeakInFlight,
		TTFTp95ms: finite(st.TTFT.P95), TPOTp95ms: finite(st.TPOT.P95), E2ELp95ms: finite(st.E2EL.P95),
		LagP99ms: finite(st.Lag.P99),
	}
	if st.TTFT.Count > 0 {
		ps.TTFTp95CI = results.IntervalOf(st.TTFT.PercentileInterval(95, stats.DefaultConfidence))
	}
	for _, o := range outcomes {
		if o.Metric == "ttft" && o.Stat == "p95" && o.CI != nil {
			iv := *o.CI // in the threshold's unit: to ms
			iv.Low, iv.High = iv.Low*o.Scale(), iv.High*o.Scale()
			ps.TTFTp95CI = results.IntervalOf(iv)
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
// search ended the probe, so requests cancelled in flight are left out).
func newProbe(spec ProbeSpec, run *loadgen.Run, mon *monitor, ths []stats.Threshold, cut bool) Probe {
	samples := completePrefix(run, cut)
	if mon.result != nil && mon.saturated == "" && len(samples) > mon.result.prefix {
		// The verdict is the one the probe was stopped with: over the
		// requests the monitor judged, not those that completed after.
		samples = samples[:mon.result.prefix]
	}
	a := analyze(samples, ths, mon.opts, mon.minWarm, mon.openLoop)
	a.st.Mode, a.st.Unsent = run.Mode, run.Unsent
	p := Probe{Number: spec.Index + 1, By: spec.By, Load: spec.Load, Requests: spec.Requests, Duration: spec.Duration,
		Target: spec.Target, Verdict: a.verdict, Saturation: mon.saturated, SLOs: make([]results.SLOResult, len(a.outcomes)),
		Stats: a.st, outcomes: a.outcomes}
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
		r := results.SLOResult{Threshold: o.Expr, Measured: finite(o.Measured), Pass: o.ConfidentPass()}
		if o.CI != nil {
			conclusive := o.Conclusive()
			r.CI, r.Conclusive = results.IntervalOf(*o.CI), &conclusive
		}
		p.SLOs[i] = r
		if !o.ConfidentPass() {
			p.Failed = append(p.Failed, describe(o))
		}
	}
	return p
}

// describe is an outcome with its interval: "ttft_p95_ms = 612.4, want
// <= 500, 95% CI 580.2–650.9", and "(not conclusive)" when the interval
// reaches across the limit.
func describe(o stats.Outcome) string {
	s := o.String()
	if o.CI != nil {
		s += ", " + o.CI.String()
		if !o.Conclusive() {
			s += " (not conclusive)"
		}
	}
	return s
}

// Leans reports whether the search counts the probe as passing: it
// passed with confidence, or it was inconclusive while every threshold
// held by its measured value.
func (p Probe) Leans() bool {
	return p.Pass || (p.Verdict == VerdictInconclusive && p.PointPass)
}

// String is the probe's one-line report, as a search prints it:
//
//	probe 3: 8 req/s: FAIL (ttft_p95_ms = 612.4, want <= 500, 95% CI 580.2–650.9): 100 measured after 12 warm-up, achieved 7.9 req/s, ttft p95 612.4 ms (95% CI 580.2–650.9), tpot p95 5.1 ms, e2el p95 900.2 ms, errors 0.00%, 112 requests in 14.6s
//
// The verdict reads pass, FAIL, INCONCLUSIVE (after N extensions) or
// SATURATED (stopped early: why).
func (p Probe) String() string {
	var verdict string
	switch p.Verdict {
	case VerdictPass:
		verdict = "pass"
	case VerdictSaturated:
		verdict = "SATURATED, stopped early (" + p.Saturation + ")"
	case VerdictInconclusive:
		lean := "leaning fail"
		if p.Leans() {
			lean = "leaning pass"
		}
		verdict = fmt.Sprintf("INCONCLUSIVE, %s, after %d extensions (%s)", lean, p.Extended, strings.Join(p.Failed, "; "))
	default:
		verdict = "FAIL (" + strings.Join(p.Failed, "; ") + ")"
	}
	s := p.Summary
	msOrNone := func(v *float64) string {
		if v == nil {
			return "none"
		}
		return fmt.Sprintf("%.1f ms", *v)
	}
	rate := "unmeasured"
	if s.AchievedRate != nil {
		rate = fmt.Sprintf("%.2f req/s", *s.AchievedRate)
	}
	ttft := msOrNone(s.TTFTp95ms)
	if s.TTFTp95ms != nil && s.TTFTp95CI != nil {
		ttft += " (" + intervalString(s.TTFTp95CI) + ")"
	}
	line := fmt.Sprintf("probe %d: %s %s: %s: %d measured after %d warm-up, achieved %s, ttft p95 %s, tpot p95 %s, e2el p95 %s, errors %.2f%%",
		p.Number, fmtLoad(p.Load), p.By.Unit(), verdict, s.Measured, s.Warmup, rate, ttft,
		msOrNone(s.TPOTp95ms), msOrNone(s.E2ELp95ms), 100*s.ErrorRate)
	if s.Goodput != nil {
		line += fmt.Sprintf(", goodput %.2f req/s", *s.Goodput)
	}
	line += fmt.Sprintf(", %d requests in %.1fs", s.Sent, s.DurationS)
	if s.Cut > 0 {
		line += fmt.Sprintf(" (%d cut short when it stopped, left out)", s.Cut)
	}
	return line
}

// intervalString prints a JSON interval as stats.Interval.String does.
func intervalString(iv *results.Interval) string {
	v := stats.Interval{Low: math.NaN(), High: math.NaN(), Confidence: iv.Confidence}
	if iv.Low != nil {
		v.Low = *iv.Low
	}
	if iv.High != nil {
		v.High = *iv.High
	}
	return v.String()
}

// loadKey is the JSON key of a load of this kind: "rate" or
// "concurrency".
func (b By) loadKey() string {
	if b == ByConcurrency {
		return "concurrency"
	}
	return "rate"
}

// probeJSON is a probe's JSON shape minus its load key.
type probeJSON struct {
	Number     int                 `json:"number"`
	Requests   int                 `json:"requests,omitempty"`
	DurationS  float64             `json:"duration_s,omitempty"`
	Target     int                 `json:"target"`
	Verdict    Verdict             `json:"verdict"`
	Pass       bool                `json:"pass"`
	PointPass  bool                `json:"point_pass"`
	Extended   int                 `json:"extended"`
	Saturation string              `json:"saturation,omitempty"`
	Failed     []string            `json:"failed"`
	SLOs       []results.SLOResult `json:"slos"`
	Stats      ProbeStats          `json:"stats"`
}

// MarshalJSON writes {"rate" (or "concurrency"): load, "number" (from 1),
// "requests" (the most planned; omitted for a timed concurrency probe),
// "duration_s" (timed probes only), "target", "verdict" ("pass", "fail",
// "inconclusive" or "saturated"), "pass", "extended", "saturation" (why,
// saturated probes only), "failed": [...], "slos": [{"threshold",
// "measured", "pass" (with confidence), "ci", "conclusive"}...], "stats":
// {...}}.
func (p Probe) MarshalJSON() ([]byte, error) {
	failed := p.Failed
	if failed == nil {
		failed = []string{}
	}
	body, err := marshalPlain(probeJSON{Number: p.Number, Requests: p.Requests, DurationS: p.Duration.Seconds(),
		Target: p.Target, Verdict: p.Verdict, Pass: p.Pass, PointPass: p.PointPass, Extended: p.Extended,
		Saturation: p.Saturation, Failed: failed, SLOs: p.SLOs, Stats: p.Summary})
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(map[string]float64{p.By.loadKey(): p.Load})
	if err != nil {
		return nil, err
	}
	// {"rate":8} + {"number":…} → {"rate":8,"number":…}
	return append(append(head[:len(head)-1], ','), body[1:]...), nil
}

// UnmarshalJSON reads what MarshalJSON writes (Stats stays zero). A probe
// of an older capacity.json, numbered by a 0-based "index" and without a
// verdict, is numbered from 1 and given the verdict its pass says.
func (p *Probe) UnmarshalJSON(b []byte) error {
	var aux struct {
		probeJSON
		Index       *int     `json:"index"`
		Rate        *float64 `json:"rate"`
		Concurrency *float64 `json:"concurrency"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	a := aux.probeJSON
	*p = Probe{Number: a.Number, Requests: a.Requests, Duration: time.Duration(a.DurationS * float64(time.Second)),
		Target: a.Target, Verdict: a.Verdict, Pass: a.Pass, PointPass: a.PointPass, Extended: a.Extended,
		Saturation: a.Saturation, Failed: a.Failed, SLOs: a.SLOs, Summary: a.Stats}
	if p.Number == 0 && aux.Index != nil {
		p.Number = *aux.Index + 1
	}
	if p.Verdict == "" {
		p.Verdict = VerdictFail
		if p.Pass {
			p.Verdict, p.PointPass = VerdictPass, true
		}
	}
	switch {
	case aux.Concurrency != nil:
		p.By, p.Load = ByConcurrency, *aux.Concurrency
	case aux.Rate != nil:
		p.By, p.Load = ByRate, *aux.Rate
	default:
		return fmt.Errorf("capacity: probe %d: neither rate nor concurrency", p.Number)
	}
	return nil
}

// intervalJSON is the capacity's interval in capacity.json.
type intervalJSON struct {
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence float64  `json:"confidence"`
	Method     string   `json:"method"`
}

// resultJSON is Result's JSON shape minus the capacity key.
type resultJSON struct {
	By            By           `json:"by"`
	Interval      intervalJSON `json:"interval"`
	Status        Status       `json:"status"`
	Reason        string       `json:"reason"`
	SLOs          []string     `json:"slos"`
	MaxErrorRate  float64      `json:"max_error_rate"`
	Start         float64      `json:"start"`
	Max           float64      `json:"max"`
	Precision     float64      `json:"precision"`
	ProbeRequests int          `json:"probe_requests"`
	ProbeDuration float64      `json:"probe_duration_s"`
	Extensions    int          `json:"extensions"`
	MaxTime       float64      `json:"max_time_s"`
	Elapsed       float64      `json:"elapsed_s"`
	Probes        []Probe      `json:"probes"`
}

// capacityKey is "capacity_rps" or "capacity_concurrency".
func (b By) capacityKey() string {
	if b == ByConcurrency {
		return "capacity_concurrency"
	}
	return "capacity_rps"
}

// MarshalJSON writes capacity.json:
//
//	{"capacity_rps" (or "capacity_concurrency"): 10.3, "by": "rate",
//	 "interval": {"low": 10, "high": 11, "confidence": 0.95, "method": "…"},
//	 "status": "found", "reason": "…", "slos": ["ttft_p95_ms <= 500",
//	 "error_rate <= 0.01"], "max_error_rate": 0.01, "start": 1, "max":
//	 1024, "precision": 0.1, "probe_requests": 100, "probe_duration_s": 0,
//	 "extensions": 2, "max_time_s": 0, "elapsed_s": 93.2, "probes": [Probe...]}
//
// The capacity is null when no probe passed, an end of the interval null
// when no probe established it. Durations are in seconds.
func (r Result) MarshalJSON() ([]byte, error) {
	if r.Interval.Method == "" {
		r.Estimate() // put together by hand: the interval from its probes
	}
	probes := r.Probes
	if probes == nil {
		probes = []Probe{}
	}
	by := r.By
	if by == "" {
		by = ByRate
	}
	conf := r.Interval.Confidence
	if conf == 0 {
		conf = stats.DefaultConfidence
	}
	method := r.Interval.Method
	if method == "" {
		method = MethodBracket
	}
	body, err := marshalPlain(resultJSON{By: by, Status: r.Status, Reason: r.Reason, SLOs: r.SLOs,
		Interval:     intervalJSON{Low: finite(r.Interval.Low), High: finite(r.Interval.High), Confidence: conf, Method: method},
		MaxErrorRate: r.MaxErrorRate, Start: r.Start, Max: r.Max, Precision: r.Precision,
		ProbeRequests: r.ProbeRequests, ProbeDuration: r.ProbeDuration.Seconds(), Extensions: r.Extensions,
		MaxTime: r.MaxTime.Seconds(), Elapsed: r.Elapsed.Seconds(), Probes: probes})
	if err != nil {
		return nil, err
	}
	var capacity *float64
	if r.Measured {
		c := r.Capacity
		capacity = &c
	}
	head, err := json.Marshal(map[string]*float64{by.capacityKey(): capacity})
	if err != nil {
		return nil, err
	}
	return append(append(head[:len(head)-1], ','), body[1:]...), nil
}

// UnmarshalJSON reads capacity.json as MarshalJSON writes it (the probes'
// full Stats stay zero). An older file without an interval gets the
// bracket its probes give; its capacity (a number there even when no
// probe passed) counts as measured when a probe passed.
func (r *Result) UnmarshalJSON(b []byte) error {
	var aux struct {
		resultJSON
		Interval *intervalJSON `json:"interval"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	a := aux.resultJSON
	secs := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	*r = Result{By: a.By, Status: a.Status, Reason: a.Reason, SLOs: a.SLOs, MaxErrorRate: a.MaxErrorRate,
		Start: a.Start, Max: a.Max, Precision: a.Precision, ProbeRequests: a.ProbeRequests,
		ProbeDuration: secs(a.ProbeDuration), Extensions: a.Extensions, MaxTime: secs(a.MaxTime),
		Elapsed: secs(a.Elapsed), Probes: a.Probes}
	raw, ok := keys["capacity_concurrency"]
	if !ok {
		raw, ok = keys["capacity_rps"]
	}
	if !ok {
		return fmt.Errorf("capacity: result: neither capacity_rps nor capacity_concurrency")
	}
	var c *float64
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("capacity: result: capacity: %w", err)
	}
	if aux.Interval == nil {
		r.estimate()
		if c != nil && r.Measured {
			r.Capacity = *c
		}
		return nil
	}
	iv := *aux.Interval
	r.Interval = stats.Interval{Low: math.NaN(), High: math.NaN(), Confidence: iv.Confidence, Method: iv.Method,
		N: len(r.Probes), EffectiveN: float64(len(r.Probes))}
	if iv.Low != nil {
		r.Interval.Low = *iv.Low
	}
	if iv.High != nil {
		r.Interval.High = *iv.High
	}
	if c != nil {
		r.Capacity, r.Measured = *c, true
	}
	return nil
}

// marshalPlain is json.Marshal without HTML escaping, so a threshold
// reads "ttft_p95_ms <= 500" in capacity.json, not "\u003c=".
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
