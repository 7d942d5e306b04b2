package results

import (
	"fmt"
	"math"
	"strings"

	"github.com/benchserve/benchserve/internal/stats"
)

// The values of CapacitySearch.By.
const (
	byRate        = "rate"
	byConcurrency = "concurrency"
)

// by is the search's By, "rate" when unset.
func (r Capacity) by() string {
	if r.By == "" {
		return byRate
	}
	return r.By
}

// loadUnit is the unit of a load searched by by: "req/s" or "streams".
func loadUnit(by string) string {
	if by == byConcurrency {
		return "streams"
	}
	return "req/s"
}

// Estimate fills Capacity, Measured and Interval from r.Probes, for a
// Capacity put together by hand or read from an older capacity.json
// without an interval: the interval's ends from the probes decided with
// confidence (Low the highest load that passed with confidence, High the
// lowest that failed with confidence or saturated, NaN when none did),
// the capacity the highest load the search counted as passing (Leans),
// not interpolated; Measured false, Capacity 0, when none did. A search
// fills them itself.
func (r *Capacity) Estimate() {
	r.Interval = Interval{Low: math.NaN(), High: math.NaN(), Confidence: DefaultConfidence,
		Method: stats.MethodBracket, N: len(r.Probes), EffectiveN: float64(len(r.Probes))}
	lo := math.NaN()
	for _, p := range r.Probes {
		if p.Pass && (math.IsNaN(r.Interval.Low) || p.Load > r.Interval.Low) {
			r.Interval.Low = p.Load
		}
		if (p.Verdict == "fail" || p.Verdict == "saturated") && (math.IsNaN(r.Interval.High) || p.Load < r.Interval.High) {
			r.Interval.High = p.Load
		}
		if p.Leans() && (math.IsNaN(lo) || p.Load > lo) {
			lo = p.Load
		}
	}
	if math.IsNaN(lo) {
		r.Capacity, r.Measured = 0, false
		return
	}
	r.Capacity, r.Measured = lo, true
	if r.By == byConcurrency {
		r.Capacity = math.Floor(r.Capacity)
	}
}

// Leans reports whether the search counts the probe as passing: it
// passed with confidence, or it was inconclusive while every threshold
// held by its measured value.
func (p CapacityProbe) Leans() bool {
	return p.Pass || (p.Verdict == "inconclusive" && p.PointPass)
}

// String is the probe's one-line report, as a search prints it:
//
//	probe 3: 8 req/s: FAIL (ttft_p95_ms = 612.4, want <= 500, 95% CI 580.2–650.9): 100 measured after 12 warm-up, achieved 7.9 req/s, ttft p95 612.4 ms (95% CI 580.2–650.9), tpot p95 5.1 ms, e2el p95 900.2 ms, errors 0.00%, 112 requests in 14.6s
//
// The verdict reads pass, FAIL, INCONCLUSIVE (after N extensions),
// SATURATED (stopped early: why) or INVALID (the client could not keep
// up: why).
func (p CapacityProbe) String() string {
	var verdict string
	switch p.Verdict {
	case "pass":
		verdict = "pass"
	case "saturated":
		verdict = "SATURATED, stopped early (" + p.Saturation + ")"
	case "invalid":
		verdict = "INVALID, it measured the client (" + strings.Join(p.Failed, "; ") + ")"
	case "inconclusive":
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
		ttft += " (" + s.TTFTp95CI.String() + ")"
	}
	line := fmt.Sprintf("probe %d: %s %s: %s: %d measured after %d warm-up, achieved %s, ttft p95 %s, tpot p95 %s, e2el p95 %s, errors %.2f%%",
		p.Number, stats.FormatLoad(p.Load), loadUnit(p.By), verdict, s.Measured, s.Warmup, rate, ttft,
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

// AtLeast checks the capacity against a floor (a CI gate: "capacity >=
// 12 req/s"): nil when the interval's lower end — the highest load whose
// probe passed with confidence — reaches floor, else an error giving the
// capacity, its interval, the floor and the search's reason. A search
// stopped by its time cap passes when the load that passed so far
// already reaches the floor.
func (r Capacity) AtLeast(floor float64) error {
	if r.Interval.Low >= floor {
		return nil
	}
	return fmt.Errorf("capacity %s is below the floor %s %s: the lower end of its interval is what must reach it (%s: %s)",
		r.Headline(), stats.FormatLoad(floor), loadUnit(r.by()), r.Status, r.Reason)
}

// Headline is the capacity with its interval, as the CLI's last line
// gives it: "10.3 req/s, 95% CI 10–11 req/s", "none (no probe passed),
// 95% CI -inf–1 req/s"; an end not established reads "-inf" or "inf".
func (r Capacity) Headline() string {
	unit := loadUnit(r.by())
	end := func(v float64, inf string) string {
		if math.IsNaN(v) {
			return inf
		}
		return stats.FormatLoad(v)
	}
	head := stats.FormatLoad(r.Capacity) + " " + unit
	if !r.Measured {
		head = "none (no probe passed)"
	}
	conf := r.Interval.Confidence
	if conf == 0 {
		conf = DefaultConfidence
	}
	// No load passed with confidence: the capacity is at least 0 (a load
	// is never negative), not "-inf".
	return fmt.Sprintf("%s, %g%% CI %s–%s %s", head, 100*conf, end(r.Interval.Low, "0"), end(r.Interval.High, "inf"), unit)
}
