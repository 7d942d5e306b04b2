package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SLOResult is one run-level threshold evaluated against a run
// (Threshold.Evaluate): an entry of a payload's "slo" block and of a
// capacity probe's "slos". Its JSON is {"threshold": "ttft_p95_ms <=
// 500", "measured": 612.4, "pass": false, "ci": {…}, "conclusive": true},
// measured null when the metric had no sample, ci and conclusive only for
// a percentile threshold.
type SLOResult struct {
	// Threshold is the threshold evaluated; its Expr is the threshold as
	// written (the JSON's "threshold").
	Threshold
	// Measured is the metric's value in the threshold's unit (NaN when
	// there were no samples, which fails the threshold).
	Measured float64
	// Pass reports whether Measured satisfies the threshold. In a capacity
	// probe it reports that the threshold held with confidence
	// (ConfidentPass).
	Pass bool
	// Skipped counts the requests left out of a tpot, itl or gen_tps
	// measurement because their decode span was not observable
	// (LoadStats.DecodeSkipped); 0 for other metrics. Not in the JSON.
	Skipped int
	// CI is the confidence interval (DefaultConfidence) of a percentile
	// threshold's statistic, in its unit (Threshold.Interval); nil for
	// other thresholds and when there were no samples. Pass is decided on
	// Measured; Conclusive and ConfidentPass say whether CI agrees.
	CI *Interval
}

// String is "ttft_p95_ms = 612.4, want <= 500" (or "…: no samples").
func (o SLOResult) String() string {
	name := strings.TrimSuffix(o.Name(), o.Op+strconv.FormatFloat(o.Value, 'g', -1, 64))
	want := fmt.Sprintf("want %s %s", o.Op, strconv.FormatFloat(o.Value, 'g', -1, 64))
	skipped := ""
	if o.Skipped > 0 {
		skipped = fmt.Sprintf(" (%d requests left out: decode span not observable)", o.Skipped)
	}
	if math.IsNaN(o.Measured) {
		return fmt.Sprintf("%s: no samples, %s%s", name, want, skipped)
	}
	return fmt.Sprintf("%s = %s, %s%s", name, o.MeasuredString(), want, skipped)
}

// MeasuredString formats Measured as String does: integers exactly,
// values >= 100 with one decimal, >= 1 with three, smaller ones with four
// significant digits; "NaN" when there were no samples.
func (o SLOResult) MeasuredString() string { return formatMeasured(o.Measured) }

func formatMeasured(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	a := math.Abs(v)
	switch {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Conclusive reports whether the verdict holds with the confidence of its
// interval: the whole interval lies within the threshold (a pass) or
// outside it (a failure). An outcome without an interval (a mean, a
// count, == and !=) or without samples is conclusive on its measured
// value. An error rate within its limit is conclusive on its point
// value too (pointPassDecides); one over it only when its interval lies
// wholly beyond the limit.
func (o SLOResult) Conclusive() bool {
	if o.CI == nil || math.IsNaN(o.Measured) || o.pointPassDecides() {
		return true
	}
	_, decided := confident(o.Op, o.Value, *o.CI)
	return decided
}

// ConfidentPass reports whether the threshold holds with confidence: its
// interval lies within it (or, without an interval, it passed; an error
// rate within its limit passes, pointPassDecides).
func (o SLOResult) ConfidentPass() bool {
	if o.CI == nil || math.IsNaN(o.Measured) || o.pointPassDecides() {
		return o.Pass
	}
	pass, _ := confident(o.Op, o.Value, *o.CI)
	return pass
}

// pointPassDecides reports an error rate within its limit: it passes on
// its point value. Bounding it with confidence would take about 3 / limit
// requests with no failure (the rule of three: 300 for 1%, none for a
// limit of 0), more than a latency probe measures; its interval still
// keeps a failure from being called confident on a few errors (3 in 100
// is 0.6%–8.5%, not over 1% with confidence).
func (o SLOResult) pointPassDecides() bool {
	return o.Metric == "error_rate" && o.Pass
}

// sloJSON is SLOResult's JSON shape.
type sloJSON struct {
	Threshold  string    `json:"threshold"`
	Measured   *float64  `json:"measured"`
	Pass       bool      `json:"pass"`
	CI         *Interval `json:"ci,omitempty"`
	Conclusive *bool     `json:"conclusive,omitempty"`
}

// MarshalJSON writes {"threshold", "measured" (null without samples),
// "pass", "ci" and "conclusive" (both omitted without an interval)}; the
// threshold is Expr, or Name when Expr is empty.
func (o SLOResult) MarshalJSON() ([]byte, error) {
	out := sloJSON{Threshold: o.Expr, Measured: finite(o.Measured), Pass: o.Pass, CI: o.CI}
	if out.Threshold == "" {
		out.Threshold = o.Name()
	}
	if o.CI != nil {
		c := o.Conclusive()
		out.Conclusive = &c
	}
	return marshalPlain(out)
}

// UnmarshalJSON reads what MarshalJSON writes: the threshold is parsed
// (ParseThreshold) so that Conclusive and String work on the result; one
// that does not parse is kept as Expr alone. A null measured becomes NaN.
func (o *SLOResult) UnmarshalJSON(b []byte) error {
	var aux sloJSON
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	th, err := ParseThreshold(aux.Threshold)
	if err != nil {
		th = Threshold{Expr: aux.Threshold}
	}
	*o = SLOResult{Threshold: th, Measured: orNaN(aux.Measured), Pass: aux.Pass, CI: aux.CI}
	return nil
}

// marshalPlain is json.Marshal without HTML escaping, so a threshold
// reads "ttft_p95_ms <= 500", not "\u003c=", in an encoder that does not
// escape either (capacity.json); one that does escapes it anyway.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
