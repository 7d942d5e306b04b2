package results

import (
	"encoding/json"
	"math"
	"strconv"
)

// DefaultConfidence is the two-sided coverage of the intervals benchserve
// attaches to percentile thresholds and capacity estimates: 95%.
const DefaultConfidence = 0.95

// Interval is a confidence interval for one statistic of a sample. Its
// JSON is {"low": 140.1, "high": 171.3, "confidence": 0.95, "method":
// "…", "n": 200, "effective_n": 61.2}, an unbounded end null.
type Interval struct {
	// Low and High bound the statistic, in the samples' unit (a
	// threshold's unit on an SLOResult); NaN (null in JSON) when that end
	// is unbounded: the sample is too small for the confidence (the p95
	// of fewer than 72 samples has no finite upper bound at 95%).
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Confidence is the two-sided coverage, e.g. 0.95: each end is a
	// one-sided bound at (1 + Confidence) / 2.
	Confidence float64 `json:"confidence"`
	// Method says how it was computed ("binomial order statistics,
	// effective sample size from autocorrelation" for a percentile).
	Method string `json:"method"`
	// N is the number of samples; EffectiveN the independent samples
	// they are worth after their autocorrelation (N for independent
	// samples, less for the waiting times of a queue, which come in
	// runs), rounded to 0.1.
	N          int     `json:"n"`
	EffectiveN float64 `json:"effective_n"`
}

// String is "95% CI 140.1–171.3", an unbounded end written "inf" (or
// "-inf"); values formatted like SLOResult.MeasuredString.
func (iv Interval) String() string {
	end := func(v float64, inf string) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return inf
		}
		return formatMeasured(v)
	}
	return strconv.FormatFloat(100*iv.Confidence, 'g', 4, 64) + "% CI " + end(iv.Low, "-inf") + "–" + end(iv.High, "inf")
}

// intervalJSON is Interval's JSON shape: unbounded ends are null.
type intervalJSON struct {
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence float64  `json:"confidence"`
	Method     string   `json:"method"`
	N          int      `json:"n"`
	EffectiveN float64  `json:"effective_n"`
}

// MarshalJSON writes the interval with its NaN (or infinite) ends as
// null.
func (iv Interval) MarshalJSON() ([]byte, error) {
	return marshalPlain(intervalJSON{Low: finite(iv.Low), High: finite(iv.High), Confidence: iv.Confidence,
		Method: iv.Method, N: iv.N, EffectiveN: iv.EffectiveN})
}

// UnmarshalJSON reads what MarshalJSON writes; a null end becomes NaN.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var aux intervalJSON
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*iv = Interval{Low: orNaN(aux.Low), High: orNaN(aux.High), Confidence: aux.Confidence, Method: aux.Method,
		N: aux.N, EffectiveN: aux.EffectiveN}
	return nil
}

// finite is &v, or nil for NaN and infinities (null in JSON).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// orNaN is *v, or NaN for nil (a JSON null).
func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// confident reports, for an interval of a threshold's statistic, whether
// the whole interval lies within the threshold (pass) or outside it
// (fail); decided is false when it straddles the limit or the needed end
// is unbounded.
func confident(op string, limit float64, iv Interval) (pass, decided bool) {
	lo, hi := iv.Low, iv.High
	switch op {
	case "<=":
		return hi <= limit, hi <= limit || lo > limit
	case "<":
		return hi < limit, hi < limit || lo >= limit
	case ">=":
		return lo >= limit, lo >= limit || hi < limit
	case ">":
		return lo > limit, lo > limit || hi <= limit
	}
	return false, false
}
