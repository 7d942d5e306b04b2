package results

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/benchserve/benchserve/internal/stats"
)

// loadKey is the JSON key of a load of this kind: "rate" or
// "concurrency".
func loadKey(by string) string {
	if by == byConcurrency {
		return "concurrency"
	}
	return "rate"
}

// probeJSON is a probe's JSON shape minus its load key.
type probeJSON struct {
	Number     int                `json:"number"`
	Requests   int                `json:"planned_requests,omitempty"`
	DurationS  float64            `json:"duration_s,omitempty"`
	Target     int                `json:"target"`
	Verdict    string             `json:"verdict"`
	Pass       bool               `json:"pass"`
	PointPass  bool               `json:"point_pass"`
	Extended   int                `json:"extended"`
	Saturation string             `json:"saturation,omitempty"`
	Failed     []string           `json:"failed"`
	SLOs       []SLOResult        `json:"slos"`
	Stats      CapacityProbeStats `json:"stats"`
}

// MarshalJSON writes {"rate" (or "concurrency"): load, "number" (from 1),
// "planned_requests" (the most it was to send, the warm-up and every
// extension included; omitted for a timed concurrency probe; what it sent
// is stats.sent),
// "duration_s" (timed probes only), "target", "verdict" ("pass", "fail",
// "inconclusive", "saturated" or "invalid"), "pass", "extended", "saturation" (why,
// saturated probes only), "failed": [...], "slos": [{"threshold",
// "measured", "pass" (with confidence), "ci", "conclusive"}...], "stats":
// {...}}.
func (p CapacityProbe) MarshalJSON() ([]byte, error) {
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
	head, err := json.Marshal(map[string]float64{loadKey(p.By): p.Load})
	if err != nil {
		return nil, err
	}
	// {"rate":8} + {"number":…} → {"rate":8,"number":…}
	return append(append(head[:len(head)-1], ','), body[1:]...), nil
}

// UnmarshalJSON reads what MarshalJSON writes (Stats stays zero). A probe
// of an older capacity.json, numbered by a 0-based "index" and without a
// verdict, is numbered from 1 and given the verdict its pass says.
func (p *CapacityProbe) UnmarshalJSON(b []byte) error {
	var aux struct {
		probeJSON
		Index       *int     `json:"index"`
		OldPlanned  int      `json:"requests"` // before planned_requests
		Rate        *float64 `json:"rate"`
		Concurrency *float64 `json:"concurrency"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	a := aux.probeJSON
	*p = CapacityProbe{Number: a.Number, Requests: a.Requests, Duration: time.Duration(a.DurationS * float64(time.Second)),
		Target: a.Target, Verdict: a.Verdict, Pass: a.Pass, PointPass: a.PointPass, Extended: a.Extended,
		Saturation: a.Saturation, Failed: a.Failed, SLOs: a.SLOs, Summary: a.Stats}
	if p.Requests == 0 {
		p.Requests = aux.OldPlanned
	}
	if p.Number == 0 && aux.Index != nil {
		p.Number = *aux.Index + 1
	}
	if p.Verdict == "" {
		p.Verdict = "fail"
		if p.Pass {
			p.Verdict, p.PointPass = "pass", true
		}
	}
	switch {
	case aux.Concurrency != nil:
		p.By, p.Load = byConcurrency, *aux.Concurrency
	case aux.Rate != nil:
		p.By, p.Load = byRate, *aux.Rate
	default:
		return fmt.Errorf("results: capacity probe %d: neither rate nor concurrency", p.Number)
	}
	return nil
}

// bracketJSON is the capacity's interval in capacity.json (no sample
// counts: its ends are probes).
type bracketJSON struct {
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence float64  `json:"confidence"`
	Method     string   `json:"method"`
}

// resultJSON is Capacity's JSON shape minus the capacity key.
type resultJSON struct {
	By            string          `json:"by"`
	Interval      bracketJSON     `json:"interval"`
	Status        string          `json:"status"`
	Reason        string          `json:"reason"`
	StartFrom     string          `json:"start_from,omitempty"`
	SLOs          []string        `json:"slos"`
	MaxErrorRate  float64         `json:"max_error_rate"`
	Start         float64         `json:"start"`
	Max           float64         `json:"max"`
	Precision     float64         `json:"precision"`
	ProbeRequests int             `json:"probe_requests"`
	ProbeDuration float64         `json:"probe_duration_s"`
	Extensions    int             `json:"extensions"`
	MaxTime       float64         `json:"max_time_s"`
	Elapsed       float64         `json:"elapsed_s"`
	Probes        []CapacityProbe `json:"probes"`
}

// capacityKey is "capacity_rps" or "capacity_concurrency".
func capacityKey(by string) string {
	if by == byConcurrency {
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
func (r Capacity) MarshalJSON() ([]byte, error) {
	if r.Interval.Method == "" {
		r.Estimate() // put together by hand: the interval from its probes
	}
	probes := r.Probes
	if probes == nil {
		probes = []CapacityProbe{}
	}
	by := r.by()
	conf := r.Interval.Confidence
	if conf == 0 {
		conf = DefaultConfidence
	}
	method := r.Interval.Method
	if method == "" {
		method = stats.MethodBracket
	}
	var slos []string
	for _, t := range r.SLOs {
		slos = append(slos, t.Expr)
	}
	body, err := marshalPlain(resultJSON{By: by, Status: r.Status, Reason: r.Reason, StartFrom: r.StartFrom, SLOs: slos,
		Interval:     bracketJSON{Low: finite(r.Interval.Low), High: finite(r.Interval.High), Confidence: conf, Method: method},
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
	head, err := json.Marshal(map[string]*float64{capacityKey(by): capacity})
	if err != nil {
		return nil, err
	}
	return append(append(head[:len(head)-1], ','), body[1:]...), nil
}

// UnmarshalJSON reads capacity.json as MarshalJSON writes it (the probes'
// full Stats stay zero). An older file without an interval gets the
// bracket its probes give; its capacity (a number there even when no
// probe passed) counts as measured when a probe passed.
func (r *Capacity) UnmarshalJSON(b []byte) error {
	var aux struct {
		resultJSON
		Interval *bracketJSON `json:"interval"`
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
	*r = Capacity{CapacitySearch: CapacitySearch{By: a.By, SLOs: thresholdsOf(a.SLOs), MaxErrorRate: a.MaxErrorRate,
		Start: a.Start, Max: a.Max, Precision: a.Precision, ProbeRequests: a.ProbeRequests,
		ProbeDuration: secs(a.ProbeDuration), Extensions: a.Extensions, MaxTime: secs(a.MaxTime)},
		Status: a.Status, Reason: a.Reason, StartFrom: a.StartFrom, Elapsed: secs(a.Elapsed), Probes: a.Probes}
	raw, ok := keys["capacity_concurrency"]
	if !ok {
		raw, ok = keys["capacity_rps"]
	}
	if !ok {
		return fmt.Errorf("results: capacity: neither capacity_rps nor capacity_concurrency")
	}
	var c *float64
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("results: capacity: capacity: %w", err)
	}
	if aux.Interval == nil {
		r.Estimate()
		if c != nil && r.Measured {
			r.Capacity = *c
		}
		return nil
	}
	iv := *aux.Interval
	r.Interval = Interval{Low: orNaN(iv.Low), High: orNaN(iv.High), Confidence: iv.Confidence, Method: iv.Method,
		N: len(r.Probes), EffectiveN: float64(len(r.Probes))}
	if c != nil {
		r.Capacity, r.Measured = *c, true
	}
	return nil
}

// thresholdsOf parses capacity.json's thresholds as written; one that
// does not parse is kept as its Expr alone.
func thresholdsOf(exprs []string) []Threshold {
	var out []Threshold
	for _, e := range exprs {
		t, err := ParseThreshold(e)
		if err != nil {
			t = Threshold{Expr: e}
		}
		out = append(out, t)
	}
	return out
}
