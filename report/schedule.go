package report

import (
	"fmt"
	"strconv"

	"github.com/benchserve/benchserve/results"
)

// loadView is a load run's header block: how its requests were sent and
// the verdict on the client itself, so a run the client could not keep up
// with reads "invalid for the server's figures" at the top of its card,
// not only in the data block (results.Schedule.ClientValid).
type loadView struct {
	// Verdict is the client's verdict in words, empty when the payload
	// has none (a merged or recovered run, or one from before the check).
	Verdict string
	// Invalid is true when the client could not keep up: the run's
	// latencies measure the client, not the server.
	Invalid bool
	Facts   []fact
}

// fact is one term and its value in a facts list.
type fact struct{ Term, Value string }

// Load is the run's load block, nil for a run that was not sent as load
// (a workload run's sequential cases, a sweep, a capacity search).
func (rv runView) Load() *loadView {
	s := rv.Schedule
	if s == nil {
		return nil
	}
	lv := &loadView{Invalid: rv.clientInvalid()}
	switch {
	case lv.Invalid:
		lv.Verdict = "Invalid for the server's figures: the client could not keep up: " + s.ClientReason
	case s.ClientValid != nil:
		lv.Verdict = "The client kept up: " + s.ClientReason
	}
	add := func(term, value string) { lv.Facts = append(lv.Facts, fact{term, value}) }
	add("load", loadText(s))
	add("sent", fmt.Sprintf("%d of %d requests over %s s", s.Sent, s.Requests, formatNum(s.SendingWindowS)))
	add("achieved rate", rateText(s.AchievedRate, s.AchievedRateReason))
	if s.LagMS != nil {
		add("schedule lag", fmt.Sprintf("p50 %s · p99 %s · max %s ms", formatNum(s.LagMS.P50), formatNum(s.LagMS.P99), formatNum(s.LagMS.Max)))
	}
	add("late · dropped · unsent", fmt.Sprintf("%d · %d · %d", s.Late, s.Dropped, s.Unsent))
	add("peak in flight", strconv.Itoa(s.PeakInFlight))
	add("connection retries", strconv.Itoa(s.ConnectionRetries))
	if s.ClientCPUUtil != nil {
		add("client CPU", strconv.FormatFloat(*s.ClientCPUUtil*100, 'f', 0, 64)+"%")
	}
	if s.ClientGCPauseMS != nil && s.ClientGCPauseMaxMS != nil {
		add("client GC pauses", fmt.Sprintf("%s ms in all, longest %s ms", formatNum(*s.ClientGCPauseMS), formatNum(*s.ClientGCPauseMaxMS)))
	}
	if st := s.TTFTFromScheduleMS; st != nil {
		add("TTFT from schedule", fmt.Sprintf("p50 %s · p99 %s ms", formatNum(st.P50), formatNum(st.P99)))
	}
	if st := s.E2ELFromScheduleMS; st != nil {
		add("E2EL from schedule", fmt.Sprintf("p50 %s · p99 %s ms", formatNum(st.P50), formatNum(st.P99)))
	}
	if s.Goodput != nil || s.GoodputReason != "" {
		add("goodput", rateText(s.Goodput, s.GoodputReason))
	}
	if s.StopReason != "" {
		add("stopped", s.StopReason)
	}
	return lv
}

// clientInvalid reports whether the payload says the client could not
// keep up (a nil verdict is not judged, not invalid).
func (rv runView) clientInvalid() bool {
	return rv.Schedule != nil && rv.Schedule.ClientValid != nil && !*rv.Schedule.ClientValid
}

// loadText says how the requests were sent: "open loop at 20 req/s
// (Poisson)", "closed loop (--request-rate inf), max concurrency 8".
func loadText(s *results.Schedule) string {
	var out string
	switch {
	case s.Mode == "trace":
		out = "trace arrivals"
	case s.TargetRate != nil:
		out = "open loop at " + formatNum(*s.TargetRate) + " req/s"
		if s.Burstiness == 1 {
			out += " (Poisson)"
		} else if s.Burstiness > 0 {
			out += " (burstiness " + formatNum(s.Burstiness) + ")"
		}
	default:
		out = "closed loop (--request-rate inf)"
	}
	if s.MaxConcurrency > 0 {
		out += ", max concurrency " + strconv.Itoa(s.MaxConcurrency)
	}
	if s.Shard != "" {
		out += ", shard " + s.Shard
	}
	return out
}

// rateText is a rate in req/s, or "null: <reason>" when the payload
// records none (a burst the timing cannot support, a run with no SLO).
func rateText(v *float64, reason string) string {
	if v == nil {
		if reason == "" {
			return "–"
		}
		return "not measured: " + reason
	}
	return formatNum(*v) + " req/s"
}
