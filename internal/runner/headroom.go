package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// ClientLimits are the bounds past which a load run's client is judged
// unable to keep up, so that its figures measure the client, not the
// server.
type ClientLimits struct {
	// LagFloorMS and LagShare bound the lag p99: a run is invalid when it
	// exceeds max(LagFloorMS, LagShare × the mean gap between arrivals).
	LagFloorMS, LagShare float64
	// CPUUtil bounds the client's CPU use (loadgen.Run.ClientUtil): at or
	// above it, the client was the bottleneck.
	CPUUtil float64
}

// DefaultClientLimits: lag p99 above max(50 ms, a tenth of the mean gap)
// or a client at 90% of its CPU. The floor is the scheduling noise a
// shared machine shows without the client being the bottleneck: on a busy
// 2-core machine (a build beside the run) shards of one run read lag p99
// 1.3, 2.6, 8.4 and 12.9 ms at 3-4% client CPU; a floor of 10 ms called
// such runs invalid.
var DefaultClientLimits = ClientLimits{LagFloorMS: 50, LagShare: 0.1, CPUUtil: 0.9}

func (l Load) clientLimits() ClientLimits {
	if l.ClientLimits != nil {
		return *l.ClientLimits
	}
	return DefaultClientLimits
}

// LagLimitMS is the lag p99, in ms, above which a schedule at rate
// (requests per second) is judged not kept: max(LagFloorMS, LagShare ×
// 1000 / rate).
func (c ClientLimits) LagLimitMS(rate float64) float64 {
	return max(c.LagFloorMS, c.LagShare*1000/rate)
}

// judgeClient fills sc's client verdict from run: its CPU use and GC
// pauses, and whether the lag p99 or the CPU passed lim. The lag is
// judged only against a rate (a trace replay's NaN rate has no mean gap). A valid run's
// reason says its headroom (how far below each limit it stayed).
func judgeClient(sc *results.Schedule, run *loadgen.Run, lim ClientLimits) {
	util, utilOK := run.ClientUtil()
	if utilOK {
		sc.ClientCPUUtil = &util
	}
	total, longest, _ := run.ClientGC()
	pause, pauseMax := ms(total), ms(longest)
	sc.ClientGCPauseMS, sc.ClientGCPauseMaxMS = &pause, &pauseMax
	var bad, room []string
	if sc.LagMS != nil && sc.TargetRate != nil && *sc.TargetRate > 0 {
		limit := lim.LagLimitMS(*sc.TargetRate)
		if sc.LagMS.P99 > limit {
			why := fmt.Sprintf("lag p99 %.1f ms > %.1f ms (max(%g ms, %g of the mean gap between arrivals))", sc.LagMS.P99, limit, lim.LagFloorMS, lim.LagShare)
			if sc.InFlightCap > 0 && run.PeakInFlight >= sc.InFlightCap {
				why += fmt.Sprintf(", with the in-flight cap of %d reached", sc.InFlightCap)
			}
			bad = append(bad, why)
		} else {
			room = append(room, fmt.Sprintf("lag p99 %.1f ms of %.1f ms", sc.LagMS.P99, limit))
		}
	}
	if utilOK {
		if util >= lim.CPUUtil {
			bad = append(bad, fmt.Sprintf("client CPU %.0f%% ≥ %.0f%%", 100*util, 100*lim.CPUUtil))
		} else {
			room = append(room, fmt.Sprintf("client CPU %.0f%% of %.0f%%", 100*util, 100*lim.CPUUtil))
		}
	}
	room = append(room, fmt.Sprintf("GC pauses %.1f ms (longest %.1f ms)", pause, pauseMax))
	valid := len(bad) == 0
	sc.ClientValid = &valid
	if valid {
		sc.ClientReason = "headroom: " + strings.Join(room, ", ")
		return
	}
	sc.ClientReason = "client could not keep up: " + strings.Join(bad, "; ") + fmt.Sprintf("; GC pauses %.1f ms (longest %.1f ms)", pause, pauseMax)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
