package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// Probe is one probe of a search and its verdict.
type Probe struct {
	// Index is the probe's 0-based position; By and Load what it ran
	// (req/s or streams); Requests and Duration the ProbeSpec's length.
	Index    int
	By       By
	Load     float64
	Requests int
	Duration time.Duration
	// Pass reports whether every threshold held.
	Pass bool
	// Failed describes every threshold that failed with its measured
	// value (stats.Outcome.String: "ttft_p95_ms = 612.4, want <= 500").
	Failed []string
	// SLOs are every threshold's outcome, in Result.SLOs order (measured
	// null when the metric had no sample).
	SLOs []results.SLOResult
	// Summary holds the probe's key statistics.
	Summary ProbeStats
	// Stats are the probe's full statistics (not in the JSON).
	Stats stats.Stats
}

// ProbeStats are a probe's key statistics as capacity.json carries them.
// A statistic with no sample behind it (no request succeeded) is null.
type ProbeStats struct {
	// Requests counts the requests sent, Succeeded and Failed split them;
	// Dropped counts those the in-flight cap dropped, Late those sent
	// behind schedule.
	Requests  int `json:"requests"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Dropped   int `json:"dropped"`
	Late      int `json:"late"`
	// DurationS is the probe's wall time in seconds.
	DurationS float64 `json:"duration_s"`
	// AchievedRate is the requests sent (and dropped) per second of the
	// probe's wall time, which includes the drain of the last requests,
	// so it reads a little below the target rate of a short probe.
	AchievedRate float64 `json:"achieved_rate"`
	// RequestThroughput is succeeded requests per second;
	// OutputThroughput completion tokens per second.
	RequestThroughput float64 `json:"request_throughput"`
	OutputThroughput  float64 `json:"output_throughput"`
	// ErrorRate is (failed + dropped) / (requests + dropped).
	ErrorRate float64 `json:"error_rate"`
	// TTFTp95ms, TPOTp95ms and E2ELp95ms are p95 latencies in ms over
	// the succeeded requests; LagP99ms is the p99 of the client's lag
	// behind the schedule, in ms.
	TTFTp95ms *float64 `json:"ttft_p95_ms"`
	TPOTp95ms *float64 `json:"tpot_p95_ms"`
	E2ELp95ms *float64 `json:"e2el_p95_ms"`
	LagP99ms  *float64 `json:"lag_p99_ms"`
	// Goodput is requests per second within the goodput SLO, null when
	// the probe had none (loadgen.StatsOptions.Goodput).
	Goodput *float64 `json:"goodput"`
	// PeakInFlight is the most requests in flight at once.
	PeakInFlight int `json:"peak_in_flight"`
}

// Summarize picks a probe's key statistics out of st.
func Summarize(st stats.Stats) ProbeStats {
	ps := ProbeStats{
		Requests: st.Requests, Succeeded: st.Succeeded, Failed: st.Failed, Dropped: st.Dropped, Late: st.Late,
		DurationS: st.Duration.Seconds(), RequestThroughput: st.RequestThroughput,
		OutputThroughput: st.OutputThroughput, ErrorRate: st.ErrorRate, PeakInFlight: st.PeakInFlight,
		TTFTp95ms: finite(st.TTFT.P95), TPOTp95ms: finite(st.TPOT.P95), E2ELp95ms: finite(st.E2EL.P95),
		LagP99ms: finite(st.Lag.P99),
	}
	if secs := st.Duration.Seconds(); secs > 0 {
		ps.AchievedRate = float64(st.Requests+st.Dropped) / secs
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

func newProbe(spec ProbeSpec, st stats.Stats, outcomes []stats.Outcome) Probe {
	p := Probe{Index: spec.Index, By: spec.By, Load: spec.Load, Requests: spec.Requests, Duration: spec.Duration,
		Pass: true, SLOs: make([]results.SLOResult, len(outcomes)), Summary: Summarize(st), Stats: st}
	for i, o := range outcomes {
		p.SLOs[i] = results.SLOResult{Threshold: o.Expr, Measured: finite(o.Measured), Pass: o.Pass}
		if !o.Pass {
			p.Pass = false
			p.Failed = append(p.Failed, o.String())
		}
	}
	return p
}

// String is the probe's one-line report, as a search prints it:
//
//	probe 3: 8 req/s: FAIL (ttft_p95_ms = 612.4, want <= 500): achieved 7.9 req/s, ttft p95 612.4 ms, tpot p95 5.1 ms, e2el p95 900.2 ms, errors 0.00%, 100 requests in 12.6s
func (p Probe) String() string {
	verdict := "pass"
	if !p.Pass {
		verdict = "FAIL (" + strings.Join(p.Failed, "; ") + ")"
	}
	s := p.Summary
	msOrNone := func(v *float64) string {
		if v == nil {
			return "none"
		}
		return fmt.Sprintf("%.1f ms", *v)
	}
	line := fmt.Sprintf("probe %d: %s %s: %s: achieved %.2f req/s, ttft p95 %s, tpot p95 %s, e2el p95 %s, errors %.2f%%",
		p.Index+1, fmtLoad(p.Load), p.By.Unit(), verdict, s.AchievedRate, msOrNone(s.TTFTp95ms),
		msOrNone(s.TPOTp95ms), msOrNone(s.E2ELp95ms), 100*s.ErrorRate)
	if s.Goodput != nil {
		line += fmt.Sprintf(", goodput %.2f req/s", *s.Goodput)
	}
	return line + fmt.Sprintf(", %d requests in %.1fs", s.Requests+s.Dropped, s.DurationS)
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
	Index     int                 `json:"index"`
	Requests  int                 `json:"requests,omitempty"`
	DurationS float64             `json:"duration_s,omitempty"`
	Pass      bool                `json:"pass"`
	Failed    []string            `json:"failed"`
	SLOs      []results.SLOResult `json:"slos"`
	Stats     ProbeStats          `json:"stats"`
}

// MarshalJSON writes {"rate" (or "concurrency"): load, "index", "requests"
// (planned; omitted for a timed concurrency probe), "duration_s" (timed
// probes only), "pass", "failed": [...], "slos": [...], "stats": {...}}.
func (p Probe) MarshalJSON() ([]byte, error) {
	failed := p.Failed
	if failed == nil {
		failed = []string{}
	}
	body, err := marshalPlain(probeJSON{Index: p.Index, Requests: p.Requests, DurationS: p.Duration.Seconds(),
		Pass: p.Pass, Failed: failed, SLOs: p.SLOs, Stats: p.Summary})
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(map[string]float64{p.By.loadKey(): p.Load})
	if err != nil {
		return nil, err
	}
	// {"rate":8} + {"index":…} → {"rate":8,"index":…}
	return append(append(head[:len(head)-1], ','), body[1:]...), nil
}

// UnmarshalJSON reads what MarshalJSON writes (Stats stays zero).
func (p *Probe) UnmarshalJSON(b []byte) error {
	var aux struct {
		probeJSON
		Rate        *float64 `json:"rate"`
		Concurrency *float64 `json:"concurrency"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*p = Probe{Index: aux.Index, Requests: aux.Requests, Duration: time.Duration(aux.DurationS * float64(time.Second)),
		Pass: aux.Pass, Failed: aux.Failed, SLOs: aux.SLOs, Summary: aux.Stats}
	switch {
	case aux.Concurrency != nil:
		p.By, p.Load = ByConcurrency, *aux.Concurrency
	case aux.Rate != nil:
		p.By, p.Load = ByRate, *aux.Rate
	default:
		return fmt.Errorf("capacity: probe %d: neither rate nor concurrency", aux.Index)
	}
	return nil
}

// resultJSON is Result's JSON shape minus the capacity key.
type resultJSON struct {
	By            By       `json:"by"`
	Status        Status   `json:"status"`
	Reason        string   `json:"reason"`
	SLOs          []string `json:"slos"`
	MaxErrorRate  float64  `json:"max_error_rate"`
	Start         float64  `json:"start"`
	Max           float64  `json:"max"`
	Precision     float64  `json:"precision"`
	ProbeRequests int      `json:"probe_requests"`
	ProbeDuration float64  `json:"probe_duration_s"`
	MaxTime       float64  `json:"max_time_s"`
	Elapsed       float64  `json:"elapsed_s"`
	Probes        []Probe  `json:"probes"`
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
//	{"capacity_rps" (or "capacity_concurrency"): 12.5, "by": "rate",
//	 "status": "found", "reason": "…", "slos": ["ttft_p95_ms <= 500",
//	 "error_rate <= 0.01"], "max_error_rate": 0.01, "start": 1, "max":
//	 1024, "precision": 0.1, "probe_requests": 50, "probe_duration_s": 0,
//	 "max_time_s": 0, "elapsed_s": 93.2, "probes": [Probe...]}
//
// Durations are in seconds.
func (r Result) MarshalJSON() ([]byte, error) {
	probes := r.Probes
	if probes == nil {
		probes = []Probe{}
	}
	by := r.By
	if by == "" {
		by = ByRate
	}
	body, err := marshalPlain(resultJSON{By: by, Status: r.Status, Reason: r.Reason, SLOs: r.SLOs,
		MaxErrorRate: r.MaxErrorRate, Start: r.Start, Max: r.Max, Precision: r.Precision,
		ProbeRequests: r.ProbeRequests, ProbeDuration: r.ProbeDuration.Seconds(), MaxTime: r.MaxTime.Seconds(),
		Elapsed: r.Elapsed.Seconds(), Probes: probes})
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(map[string]float64{by.capacityKey(): r.Capacity})
	if err != nil {
		return nil, err
	}
	return append(append(head[:len(head)-1], ','), body[1:]...), nil
}

// UnmarshalJSON reads capacity.json as MarshalJSON writes it (the probes'
// full Stats stay zero).
func (r *Result) UnmarshalJSON(b []byte) error {
	var aux struct {
		resultJSON
		RPS         *float64 `json:"capacity_rps"`
		Concurrency *float64 `json:"capacity_concurrency"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	a := aux.resultJSON
	secs := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	*r = Result{By: a.By, Status: a.Status, Reason: a.Reason, SLOs: a.SLOs, MaxErrorRate: a.MaxErrorRate,
		Start: a.Start, Max: a.Max, Precision: a.Precision, ProbeRequests: a.ProbeRequests,
		ProbeDuration: secs(a.ProbeDuration), MaxTime: secs(a.MaxTime), Elapsed: secs(a.Elapsed), Probes: a.Probes}
	switch {
	case aux.Concurrency != nil:
		r.Capacity = *aux.Concurrency
	case aux.RPS != nil:
		r.Capacity = *aux.RPS
	default:
		return fmt.Errorf("capacity: result: neither capacity_rps nor capacity_concurrency")
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
