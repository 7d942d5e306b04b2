package capacity

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stats"
)

// The start estimate of a rate search whose Config.Start is 0: a closed
// loop of burstStreams streams sends burstRequests requests (every slot
// of a server with up to burstStreams busy, a queue behind them), and its
// completions per second are the service rate the server sustains; the
// first probe runs at startShare of it. A queue's latency stays near its
// unloaded value up to about half its service rate and climbs steeply
// towards it, so half is close to the crossing of most latency SLOs
// (0.62 of it for 4 slots × 0.24 s under ttft_p95_ms <= 200, 0.39 for 2
// slots × 0.295 s under 300 ms) without risking a probe of the saturated
// queue; the search steps down from there when it does not pass.
const (
	burstStreams  = 16
	burstRequests = 4 * burstStreams
	startShare    = 0.5
	// estimatedGrowth is the factor between the probes of the ramp from
	// an estimated start (up, or down when the first does not pass):
	// the estimate is near the answer, so smaller steps than doubling.
	estimatedGrowth = 1.5
	// maxStepsDown is how far the ramp steps down from an estimated start
	// before it gives up: 1.5⁸ ≈ 26 times below it.
	maxStepsDown = 8
)

// counter is an Observer that only counts.
type counter struct{}

func (counter) Sent(int, time.Duration) {}
func (counter) Done(loadgen.Sample)     {}

// serviceRate runs the burst through probe and returns the completions
// per second (succeeded requests over the window from the first send to
// the last end) and a sentence saying what was measured; rate 0 when
// nothing succeeded (the search then starts at DefaultStart). Only an
// error the ProbeFunc returns (or the end of ctx) is an error.
func serviceRate(ctx context.Context, probe ProbeFunc) (rate float64, why string, err error) {
	spec := ProbeSpec{By: ByConcurrency, Load: burstStreams, Requests: burstRequests, Target: burstRequests}
	run, err := probe(ctx, spec, counter{})
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		return 0, "", fmt.Errorf("capacity: start estimate (closed loop of %d streams): %w", burstStreams, err)
	}
	if run == nil {
		return 0, "", fmt.Errorf("capacity: start estimate: no run returned")
	}
	ok := 0
	first, last := time.Duration(math.MaxInt64), time.Duration(0)
	for _, s := range run.Samples {
		first = min(first, s.Sent)
		if s.OK() {
			ok++
			last = max(last, end(s))
		}
	}
	if ok == 0 || last <= first {
		return 0, fmt.Sprintf("no request of a closed-loop burst of %d streams succeeded (%d sent): started at %s req/s",
			burstStreams, len(run.Samples), stats.FormatLoad(DefaultStart)), nil
	}
	rate = float64(ok) / (last - first).Seconds()
	return rate, fmt.Sprintf("a closed loop of %d streams completed %d requests in %.1fs: %s req/s served; started at %g of it",
		burstStreams, ok, (last - first).Seconds(), stats.FormatLoad(rate), startShare), nil
}

// roundLoad rounds a chosen load to 2 significant digits, so probe lines
// read 8.3 req/s rather than 8.3312.
func roundLoad(v float64) float64 { return roundTo(v, 2) }

// roundTo rounds v to digits significant digits.
func roundTo(v float64, digits int) float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	return r
}
