package capacity

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// Observer is told of a probe's requests as they happen, so the search
// can stop the probe once its verdict is decided or the server is
// saturated. Its methods are safe for concurrent use; Watch calls them
// for a loadgen.Func.
type Observer interface {
	// Sent: request i (0-based, schedule order) was sent at offset at
	// from the probe's start.
	Sent(i int, at time.Duration)
	// Done: a request completed; s.Index and s.Sent are set, its
	// measurements filled (or its failure).
	Done(s loadgen.Sample)
}

// Watch returns fn reporting every request to obs: Sent before it is
// sent, Done with its sample once it completed. Offsets run from the
// call to Watch, so call it just before the run starts.
func Watch(fn loadgen.Func, obs Observer) loadgen.Func {
	t0 := time.Now()
	return func(ctx context.Context, i int) loadgen.Sample {
		at := time.Since(t0)
		obs.Sent(i, at)
		s := fn(ctx, i)
		s.Index, s.Sent = i, at
		obs.Done(s)
		return s
	}
}

// A probe's outcome (results.CapacityProbe.Verdict).
const (
	// VerdictPass: every SLO held with confidence (each percentile's
	// interval lies within its threshold) and the error rate was within
	// its limit.
	VerdictPass = "pass"
	// VerdictFail: some threshold failed with confidence (a percentile's
	// whole interval lies beyond it, or the error rate was over).
	VerdictFail = "fail"
	// VerdictInconclusive: an interval still reached across its
	// threshold when the probe had been extended as far as allowed
	// (Config.Extensions); the search steers by its measured values
	// (Probe.Leans), and it bounds neither end of the capacity's interval.
	VerdictInconclusive = "inconclusive"
	// VerdictSaturated: arrivals outran completions — the number of
	// requests in flight and TTFT rose steadily through the probe — so
	// it was stopped early; a failure.
	VerdictSaturated = "saturated"
)

// Warm-up rule (see analyze): the fraction of a probe's arrivals always
// left out, the most left out, and the service times of arrivals left
// out at the start.
const (
	warmupFraction    = 0.10
	maxWarmupFraction = 0.5
	warmupServices    = 2
)

// analysis is a probe's statistics over its measured requests.
type analysis struct {
	// prefix requests were analysed (indices 0..prefix−1, all complete);
	// the first warmup of them are the warm-up, the rest measured.
	prefix, warmup int
	measured       []loadgen.Sample
	// cycles counts the measured window's busy cycles (cycles).
	cycles   int
	st       results.LoadStats
	outcomes []results.SLOResult
	verdict  string
}

// minHeap is a heap of end offsets.
type minHeap []time.Duration

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(time.Duration)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// end is the offset at which s completed.
func end(s loadgen.Sample) time.Duration {
	e := s.E2ELms
	if math.IsNaN(e) || e < 0 {
		e = 0
	}
	return s.Sent + time.Duration(e*float64(time.Millisecond))
}

// inFlight is, for each request of samples (by index, sent in that
// order), how many earlier requests were still in flight when it was
// sent.
func inFlight(samples []loadgen.Sample) []int {
	q := make([]int, len(samples))
	h := &minHeap{}
	for i, s := range samples {
		for h.Len() > 0 && (*h)[0] <= s.Sent {
			heap.Pop(h)
		}
		q[i] = h.Len()
		heap.Push(h, end(s))
	}
	return q
}

// serviceTime is how long the succeeded samples held the server, their
// wait in its queue left out: the median decode time (E2E latency −
// TTFT) plus the least TTFT (the first token's unloaded cost); 0 when
// none succeeded. The median E2E latency would not do: once a queue
// builds up it is mostly the wait.
func serviceTime(samples []loadgen.Sample) time.Duration {
	var decode []float64
	least := math.Inf(1)
	for _, s := range samples {
		if s.OK() && !math.IsNaN(s.E2ELms) && !math.IsNaN(s.TTFTms) {
			decode = append(decode, math.Max(0, s.E2ELms-s.TTFTms))
			least = math.Min(least, s.TTFTms)
		}
	}
	if len(decode) == 0 {
		return 0
	}
	return time.Duration((median(decode) + least) * float64(time.Millisecond))
}

// warmupOf is how many of the first samples (complete, by index) are the
// warm-up: the largest of 10% of them, those sent within two service times
// (serviceTime) of the first, minWarm, and those sent
// before the number in flight at an arrival first reached its median over
// the second half (the line has built up) — at most half.
func warmupOf(samples []loadgen.Sample, minWarm int) int {
	n := len(samples)
	if n == 0 {
		return 0
	}
	w := max(int(math.Ceil(warmupFraction*float64(n))), minWarm)
	if svc := serviceTime(samples); svc > 0 {
		limit := samples[0].Sent + warmupServices*svc
		k := 0
		for k < n && samples[k].Sent < limit {
			k++
		}
		w = max(w, k)
	}
	q := inFlight(samples)
	second := slices.Clone(q[n/2:])
	slices.Sort(second)
	if med := second[len(second)/2]; med > 0 {
		k := 0
		for k < n && q[k] < med {
			k++
		}
		w = max(w, k)
	}
	return min(w, int(maxWarmupFraction*float64(n)))
}

// cycles counts the busy cycles in q, the number of requests in flight
// found by each arrival: a queue forgets its past when it empties, so an
// arrival that finds the fewest in flight (none, for a server that
// empties) starts a fresh cycle, and so does one that finds the count
// back at its low level (its 10th percentile) after it had risen to its
// median (at least one above the low level). These are the independent
// stretches the window holds (the regenerative view of a queue): a
// window a handful of cycles long says little about the steady state,
// however many requests it holds.
func cycles(q []int) int {
	if len(q) == 0 {
		return 0
	}
	sorted := slices.Clone(q)
	slices.Sort(sorted)
	least, low := sorted[0], sorted[len(sorted)/10]
	high := max(sorted[len(sorted)/2], low+1)
	n, up := 0, false
	for _, v := range q {
		switch {
		case v == least:
			n++
			up = false
		case v >= high:
			up = true
		case v <= low && up:
			n++
			up = false
		}
	}
	return n
}

// MinBusyCycles is the fewest busy cycles (see cycles) an open-loop
// probe's measured window must hold to pass: the requests of a window
// that is a few cycles long come from a few independent stretches of the
// queue, and a percentile interval taken over them is narrower than it
// should be.
const MinBusyCycles = 10

// analyze computes a probe's statistics and verdict over samples (a
// complete prefix of the probe, by index): the warm-up left out
// (warmupOf), the rest summarized (loadgen.Summarize over their window,
// first send to last end) and judged by ths: pass when every threshold
// holds with confidence (and, open-loop, the window holds MinBusyCycles
// busy cycles), fail when one fails with confidence, else inconclusive.
func analyze(samples []loadgen.Sample, ths []results.Threshold, opts summary.Options, minWarm int, openLoop bool) analysis {
	a := analysis{prefix: len(samples), warmup: warmupOf(samples, minWarm)}
	a.measured = samples[a.warmup:]
	var first, last time.Duration
	late := 0
	for i, s := range a.measured {
		if i == 0 || s.Sent < first {
			first = s.Sent
		}
		last = max(last, end(s))
		if s.Lag > time.Millisecond {
			late++
		}
	}
	a.st = summary.Requests(a.measured, last-first, opts)
	a.st.Late = late
	if q := inFlight(samples); len(q) > a.warmup {
		a.st.PeakInFlight = slices.Max(q[a.warmup:]) + 1
		a.cycles = cycles(q[a.warmup:])
	}
	a.outcomes = summary.Evaluate(a.st, ths)
	a.verdict = VerdictPass
	for _, o := range a.outcomes {
		switch {
		case !o.Pass && o.Conclusive():
			a.verdict = VerdictFail
		case !o.ConfidentPass() && a.verdict == VerdictPass:
			a.verdict = VerdictInconclusive
		}
	}
	if a.verdict == VerdictPass && openLoop && a.cycles < MinBusyCycles {
		// Too few busy cycles to speak for the steady state: a window
		// shorter than the queue's memory looks better than it is.
		a.verdict = VerdictInconclusive
	}
	return a
}

// errStopped is the cause with which the search ends a probe it has
// seen enough of.
var errStopped = errors.New("capacity: probe stopped: verdict reached")

// monitor watches one probe (an Observer) and stops it (cancel) at the
// first checkpoint whose analysis is decided, after the last checkpoint,
// or when the server saturates (open-loop probes).
type monitor struct {
	ths     []results.Threshold
	opts    summary.Options
	minWarm int
	// targets are the measured-request counts at which the verdict is
	// looked at: the probe's target, then doubled per extension.
	targets  []int
	openLoop bool
	cancel   context.CancelCauseFunc

	mu        sync.Mutex
	sends     []time.Duration // by index; -1 until sent
	done      []*loadgen.Sample
	prefix    int // requests 0..prefix−1 are all done
	completed int
	ends      []time.Duration // completion offsets, in arrival order of Done
	now       time.Duration
	look      int // next target to look at
	lastTry   int // prefix at the last analysis that fell short of a target
	stopped   bool
	result    *analysis
	saturated string // why the probe was called saturated
	sinceSat  int
	// maxErrorRate is the probe's error-rate limit; failed counts the
	// completions that failed (cancelled and interrupted ones left
	// out), errorStop says why the errors stopped the probe.
	maxErrorRate float64
	failed       int
	errorStop    string
	// spec is the probe; onProgress, when set, is told its Progress at
	// every completion (under mu: it must be quick); lastInterval is the
	// binding interval at the last undecided look.
	spec         ProbeSpec
	onProgress   func(Progress)
	lastInterval string
}

// errorsOver reports why the probe's errors so far exceed its limit
// with confidence ("" when they do not): loadgen.ErrorRateOver, the
// exact binomial interval of failed of completed wholly above
// maxErrorRate. A server that fails requests at this load fails the
// probe however its latency looks, and every request more is paid for
// (GPU hours).
func (m *monitor) errorsOver() string {
	return loadgen.ErrorRateOver(m.failed, m.completed, m.maxErrorRate)
}

func (m *monitor) Sent(i int, at time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for len(m.sends) <= i {
		m.sends = append(m.sends, -1)
	}
	m.sends[i] = at
	m.now = max(m.now, at)
}

func (m *monitor) Done(s loadgen.Sample) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped || s.Index < 0 {
		return
	}
	for len(m.done) <= s.Index {
		m.done = append(m.done, nil)
	}
	m.done[s.Index] = &s
	if s.Kind == results.KindCanceled || s.Kind == results.KindInterrupted {
		// Cut short, not failed by the server: the search's own stop.
	} else {
		m.completed++
		if !s.OK() {
			m.failed++
		}
	}
	e := end(s)
	m.ends = append(m.ends, e)
	m.now = max(m.now, e)
	for m.prefix < len(m.done) && m.done[m.prefix] != nil {
		m.prefix++
	}
	if why := m.errorsOver(); why != "" && !m.stopped {
		m.errorStop = why
		m.stop()
		return
	}
	m.checkpoint()
	if m.onProgress != nil && !m.stopped {
		m.onProgress(m.progress())
	}
	if !m.stopped && m.openLoop {
		m.sinceSat++
		if m.sinceSat >= max(1, m.completed/40) {
			m.sinceSat = 0
			if why := m.saturation(); why != "" {
				m.saturated = why
				m.stop()
			}
		}
	}
}

// checkpoint analyses the complete prefix once it can hold the next
// target's measured requests, and stops the probe when the verdict is
// decided (or the last target is reached).
func (m *monitor) checkpoint() {
	if m.look >= len(m.targets) {
		return
	}
	target := m.targets[m.look]
	need := int(math.Ceil(float64(target) / (1 - warmupFraction)))
	if m.prefix < need || (m.lastTry > 0 && m.prefix < m.lastTry+max(1, m.lastTry/20)) {
		return
	}
	samples := make([]loadgen.Sample, m.prefix)
	for i := range samples {
		samples[i] = *m.done[i]
	}
	a := analyze(samples, m.ths, m.opts, m.minWarm, m.openLoop)
	m.lastInterval = intervalText(a)
	if len(a.measured) < target {
		m.lastTry = m.prefix
		return
	}
	m.lastTry = 0
	m.look++
	if a.verdict != VerdictInconclusive || m.look == len(m.targets) {
		m.result = &a
		m.stop()
	}
}

func (m *monitor) stop() {
	m.stopped = true
	if m.cancel != nil {
		m.cancel(errStopped)
	}
}

// Saturation test constants: the least a probe must have run (in median
// service times, sends and completions) before it can be called
// saturated, and the share of it the trends are fitted over (the latest).
const (
	saturationServices = 10
	saturationSends    = 30
	saturationDone     = 20
	saturationWindow   = 0.75
	saturationExcess   = 3
)

// saturation reports why the probe is saturated, "" when it is not:
// over the latest 75% of the probe (after at least 10 service times,
// serviceTime, 30 arrivals and 20 completions), both the number of
// requests in flight at each arrival and the TTFT of the requests sent
// then rise (least-squares slope above zero by two standard errors, the
// errors widened for the series' lag-1 autocorrelation), the in-flight
// count by at least half its mean over the window (at least +3) and TTFT
// by half its median, and the arrivals outnumber the completions by more
// than three times the arrivals' Poisson noise (3·√arrivals). A
// stationary queue, however loaded, wanders up and down; only that
// excess says the arrivals outrun what the server completes.
// GuideLLM's over-saturation detection tests the same two slopes.
func (m *monitor) saturation() string {
	var doneSamples []loadgen.Sample
	for _, d := range m.done {
		if d != nil {
			doneSamples = append(doneSamples, *d)
		}
	}
	svc := serviceTime(doneSamples)
	sent := 0
	for _, s := range m.sends {
		if s >= 0 {
			sent++
		}
	}
	if svc <= 0 || m.now < saturationServices*svc || sent < saturationSends || m.completed < saturationDone {
		return ""
	}
	from := time.Duration((1 - saturationWindow) * float64(m.now))
	ends := slices.Clone(m.ends)
	slices.Sort(ends)
	var xs, qs []float64
	for i, at := range m.sends {
		if at < from {
			continue
		}
		doneBy, _ := slices.BinarySearch(ends, at+1)
		xs = append(xs, at.Seconds())
		qs = append(qs, float64(i-doneBy))
	}
	var tx, ttft []float64
	for _, s := range doneSamples {
		if s.Sent >= from && s.OK() {
			tx = append(tx, s.Sent.Seconds())
			ttft = append(ttft, s.TTFTms)
		}
	}
	if len(xs) < saturationSends/2 || len(tx) < saturationDone/2 {
		return ""
	}
	span := m.now.Seconds() - from.Seconds()
	bq, okq := risingSlope(xs, qs)
	bt, okt := risingSlope(tx, ttft)
	meanQ := 0.0
	for _, q := range qs {
		meanQ += q / float64(len(qs))
	}
	medT := median(ttft)
	if !okq || !okt || bq*span < math.Max(3, 0.5*meanQ) || bt*span < 0.5*medT {
		return ""
	}
	completions := 0
	for _, e := range ends {
		if e >= from {
			completions++
		}
	}
	// A stationary queue's in-flight count wanders: over a window its
	// arrivals and completions differ by the count's change, about the
	// Poisson noise of the arrivals. Arrivals that outran completions by
	// less than three times that are not saturation.
	if excess := float64(len(xs) - completions); excess < saturationExcess*math.Sqrt(float64(len(xs))) {
		return ""
	}
	arrivals := float64(len(xs)) / span
	return fmt.Sprintf("arrivals %.2f/s outran completions %.2f/s over the last %.1fs: in flight rising %.1f/s (to %d), ttft rising %.0f ms/s (median %.0f ms)",
		arrivals, float64(completions)/span, span, bq, int(qs[len(qs)-1]), bt, medT)
}

// risingSlope fits y = a + b·x by least squares and reports b and
// whether it is above zero by two standard errors, the error widened by
// √((1+r)/(1−r)) for the residuals' lag-1 autocorrelation r > 0.
func risingSlope(x, y []float64) (float64, bool) {
	n := float64(len(x))
	if n < 4 {
		return 0, false
	}
	var mx, my float64
	for i := range x {
		mx += x[i] / n
		my += y[i] / n
	}
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx <= 0 {
		return 0, false
	}
	b := sxy / sxx
	a := my - b*mx
	res := make([]float64, len(x))
	var rss, lag float64
	for i := range x {
		res[i] = y[i] - a - b*x[i]
		rss += res[i] * res[i]
		if i > 0 {
			lag += res[i] * res[i-1]
		}
	}
	se := math.Sqrt(rss / (n - 2) / sxx)
	if rss > 0 {
		if r := lag / rss; r > 0 {
			se *= math.Sqrt((1 + math.Min(r, 0.99)) / (1 - math.Min(r, 0.99)))
		}
	}
	return b, b > 0 && b-2*se > 0
}

// median of v (not modified); NaN when empty.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return stats.Percentile(s, 50)
}

// completePrefix is the run's samples by index up to the first one the
// search cut short (cancelled or interrupted in flight when it stopped
// the probe), so the statistics hold no request whose answer never came.
func completePrefix(run *loadgen.Run, cut bool) []loadgen.Sample {
	samples := slices.Clone(run.Samples)
	slices.SortFunc(samples, func(a, b loadgen.Sample) int { return a.Index - b.Index })
	if !cut {
		return samples
	}
	for i, s := range samples {
		if s.Index != i || s.Kind == results.KindCanceled || s.Kind == results.KindInterrupted {
			return samples[:i]
		}
	}
	return samples
}
