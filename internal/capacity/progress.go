package capacity

import (
	"fmt"
	"math"
	"time"

	"github.com/benchserve/benchserve/internal/stats"
)

// Progress is a running probe's state, for a live progress line
// (Config.OnProgress) and a line at each probe's start (Config.OnStart).
type Progress struct {
	// Spec is the probe.
	Spec ProbeSpec
	// Sent and Completed count its requests so far; Elapsed is the time
	// since its first send.
	Sent, Completed int
	Elapsed         time.Duration
	// Look is the measured requests its next verdict is looked at with
	// (the target, doubled per extension), Planned the most it sends.
	Look, Planned int
	// Interval is the binding threshold's interval at the last look that
	// fell short of a verdict, as text ("95% CI 128.0–648.4 for
	// ttft_p95_ms <= 200"); "" before the first look.
	Interval string
}

// String is the progress line: "probe 2 at 8.7 req/s: 412 of 889 sent
// (next look at 400 measured), 95% CI 186.8–296.3 for ttft_p95_ms <=
// 200, 47s, about 55s to its last look".
func (p Progress) String() string {
	unit := unit(p.Spec.By)
	s := fmt.Sprintf("probe %d at %s %s: %d of %d sent (next look at %d measured)", p.Spec.Index+1,
		stats.FormatLoad(p.Spec.Load), unit, p.Sent, p.Planned, p.Look)
	if p.Interval != "" {
		s += ", " + p.Interval
	}
	s += fmt.Sprintf(", %s", p.Elapsed.Round(time.Second))
	if left, ok := p.left(); ok {
		s += fmt.Sprintf(", at most %s more", left.Round(time.Second))
	}
	return s
}

// left is how long the probe may still take at its rate to send all it
// planned (ok false for a concurrency probe, whose rate is the server's).
func (p Progress) left() (time.Duration, bool) {
	if p.Spec.By == ByConcurrency || !(p.Spec.Load > 0) || p.Planned == 0 {
		return 0, false
	}
	return time.Duration(float64(max(p.Planned-p.Sent, 0)) / p.Spec.Load * float64(time.Second)), true
}

// StartLine is the line a log gets as probe spec starts: its load, its
// first look and most requests, and at a rate how long those take
// ("probe 3: 7.25 req/s: started; first look at 100 measured, at most
// 889 requests (about 31s to the first look, 2m03s at most)").
func StartLine(spec ProbeSpec) string {
	s := fmt.Sprintf("probe %d: %s %s: started; first look at %d measured", spec.Index+1, stats.FormatLoad(spec.Load), unit(spec.By), spec.Target)
	switch {
	case spec.Duration > 0:
		s += fmt.Sprintf(", for %v", spec.Duration)
	case spec.By == ByRate && spec.Load > 0:
		first := float64(spec.Target) / (1 - warmupFraction) / spec.Load
		most := float64(spec.Requests) / spec.Load
		s += fmt.Sprintf(", at most %d requests (about %s to the first look, %s at most)", spec.Requests,
			secs(first), secs(most))
	default:
		s += fmt.Sprintf(", at most %d requests", spec.Requests)
	}
	return s
}

// secs formats seconds as a rounded duration.
func secs(v float64) time.Duration {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	return time.Duration(v * float64(time.Second)).Round(time.Second)
}

// progress is the monitor's state as a Progress (m.mu held).
func (m *monitor) progress() Progress {
	p := Progress{Spec: m.spec, Completed: m.completed, Elapsed: m.now, Planned: m.spec.Requests, Interval: m.lastInterval}
	for _, s := range m.sends {
		if s >= 0 {
			p.Sent++
		}
	}
	if m.look < len(m.targets) {
		p.Look = m.targets[m.look]
	} else if len(m.targets) > 0 {
		p.Look = m.targets[len(m.targets)-1]
	}
	return p
}

// intervalText is the binding threshold's interval of a, as Progress
// gives it: the first threshold not decided, else the first.
func intervalText(a analysis) string {
	for _, o := range a.outcomes {
		if o.CI != nil && !o.Conclusive() {
			return o.CI.String() + " for " + o.Expr
		}
	}
	for _, o := range a.outcomes {
		if o.CI != nil {
			return o.CI.String() + " for " + o.Expr
		}
	}
	return ""
}
