package summary

import (
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// Pool pools the load runs of a benchmark's rounds (b.Loop iterations of
// benchtest.BenchWorkload and BenchSweep) into one set of statistics: the
// samples of every round over the sum of their durations, the peak in
// flight, the late requests and the sending windows. The zero Pool is
// empty and ready.
type Pool struct {
	samples  []loadgen.Sample
	duration time.Duration
	peak     int
	late     int
	// gaps and window measure the arrivals' own rate: the sent requests'
	// gaps over each run's sending window, summed.
	gaps   int
	window time.Duration
	// closed says a pooled run was a closed loop, which has no arrival
	// rate (loadgen.Run.AchievedRate): SendRate is then null.
	closed bool
}

// Add pools run r.
func (p *Pool) Add(r *loadgen.Run) {
	p.samples = append(p.samples, r.Samples...)
	p.duration += r.Duration
	p.peak = max(p.peak, r.PeakInFlight)
	p.late += r.Late
	p.gaps += max(r.Sent-1, 0)
	p.window += r.LastSent - r.FirstSent
	p.closed = p.closed || r.Mode == "closed"
}

// Stats is the pooled results.LoadStats (Requests over every round's
// samples and their summed duration) with the peak in flight and the
// late requests.
func (p *Pool) Stats(opts Options) results.LoadStats {
	s := Requests(p.samples, p.duration, opts)
	s.PeakInFlight, s.Late = p.peak, p.late
	return s
}

// SendRate is the rate the pooled runs sent their requests at, over
// their sending windows (stats.SendRate); ok false, with the reason, when
// too few requests were sent to measure one, or a run was a closed loop
// (no arrival rate: how fast the client sent, not what the server
// served).
func (p *Pool) SendRate() (rate float64, ok bool, reason string) {
	if p.closed {
		return 0, false, "a closed loop has no arrival rate: each stream sent its next request when its last one ended (req/s is the rate the server served)"
	}
	return stats.SendRate(p.gaps+1, p.window)
}

// AllFailed reports whether requests were measured and every one failed:
// figures that measure errors, not the server.
func AllFailed(s results.LoadStats) bool { return s.Requests > 0 && s.Failed == s.Requests }
