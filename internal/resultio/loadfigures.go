package resultio

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// sendSpan is one sent request of a load run, read from its record.
type sendSpan struct {
	shard      int // -1 when unsharded
	start, end time.Time
	rec        *results.Record
}

// spansOf reads the send and end instants of recs: started_at, and
// ended_at or else started_at + e2e_latency_ms. A started_at that does
// not parse is an error naming the record.
func spansOf(recs []results.Record) ([]sendSpan, error) {
	out := make([]sendSpan, 0, len(recs))
	for i := range recs {
		r := &recs[i]
		start := parseISO(r.StartedAt)
		if start.IsZero() {
			return nil, fmt.Errorf("record %d (%s): started_at %q is not a timestamp: the run's sending window cannot be measured", i, keyOf(*r), r.StartedAt)
		}
		end := parseISO(r.EndedAt)
		if end.IsZero() {
			end = start.Add(time.Duration(r.Metrics.E2ELms * float64(time.Millisecond)))
		}
		out = append(out, sendSpan{shard: keyOf(*r).shard, start: start, end: end, rec: r})
	}
	return out, nil
}

// ScheduleFromRecords returns a copy of settings (a load run's schedule
// block: mode, rates, burstiness, seed, cap and the counts of requests
// scheduled, late, dropped and unsent) with every figure that depends on
// when the requests ran recomputed from recs, the run's records: Sent,
// SendingWindowS, AchievedRate (stats.SendRate over the first to the last
// send; null in a closed loop), RequestThroughput and WallSpanS (the
// records that succeeded over the first send to the last end),
// PeakInFlight (the most records whose [started_at, ended_at)
// intervals overlap), LagMS (from the records' lag_ms; nil with a note
// when a record lacks it) and Goodput (the records within GoodputSLO
// over the same span).
//
// When recs come from several shards, StartSkewS is the spread of the
// shards' starts (their first sends: MergeNamed passes the shards'
// schedules, whose StartedAt is the real start) and AchievedRate is
// measured over the window in which every shard was sending (the latest
// start to the earliest end), or, when that window holds too few
// requests for a rate, over the whole sending window with a note saying
// so; a skew over a tenth of the run adds a note. The error names a
// record whose started_at does not parse.
func ScheduleFromRecords(settings *results.Schedule, recs []results.Record) (*results.Schedule, error) {
	return scheduleFromRecords(settings, recs, nil)
}

// scheduleFromRecords is ScheduleFromRecords with the shards' own
// schedules by shard index (their StartedAt, duration and counts), nil
// when there are none.
func scheduleFromRecords(settings *results.Schedule, recs []results.Record, shards map[int]*results.Schedule) (*results.Schedule, error) {
	sc := *settings
	sc.Notes = slices.Clone(settings.Notes)
	sc.StartSkewS, sc.LagMS, sc.AchievedRate, sc.AchievedRateReason = nil, nil, nil, ""
	sc.Goodput, sc.GoodputReason = nil, ""
	sc.RequestThroughput, sc.RequestThroughputReason, sc.WallSpanS = nil, "", 0
	spans, err := spansOf(recs)
	if err != nil {
		return nil, err
	}
	sc.Sent = len(spans)
	sc.SummarizeFromSchedule(recs) // the records' own latencies from the schedule
	sc.ConnectionRetries = 0
	for _, r := range recs {
		sc.ConnectionRetries += r.Metrics.ConnectionRetries
	}
	sc.SendingWindowS, sc.PeakInFlight = 0, 0
	if len(spans) == 0 {
		sc.AchievedRateReason = "no request was sent"
		sc.RequestThroughputReason = sc.AchievedRateReason
		if sc.GoodputSLO != nil {
			sc.GoodputReason = sc.AchievedRateReason
		}
		return &sc, nil
	}
	slices.SortStableFunc(spans, func(a, b sendSpan) int { return a.start.Compare(b.start) })
	first, last := spans[0].start, spans[len(spans)-1].start
	sc.SendingWindowS = last.Sub(first).Seconds()
	rate, ok, reason := stats.SendRate(len(spans), last.Sub(first))
	// The completed throughput, over the wall span (first send to last end).
	ended := first
	completed := 0
	for _, s := range spans {
		if s.end.After(ended) {
			ended = s.end
		}
		if s.rec.OK && s.rec.Error == "" && !s.rec.Interrupted {
			completed++
		}
	}
	sc.WallSpanS = ended.Sub(first).Seconds()
	if tp, ok, why := stats.Throughput(completed, len(spans), ended.Sub(first)); ok {
		sc.RequestThroughput = &tp
	} else {
		sc.RequestThroughputReason = why
	}

	// Shards: their starts and last sends, the skew and the common window.
	type bounds struct{ first, last, origin, end time.Time }
	byShard := map[int]*bounds{}
	for _, s := range spans {
		b := byShard[s.shard]
		if b == nil {
			byShard[s.shard] = &bounds{first: s.start, last: s.start}
			continue
		}
		b.last = s.start
	}
	origins := 0
	for shard, b := range byShard {
		b.origin, b.end = b.first, b.last
		if st := shards[shard]; st != nil {
			if at := parseISO(st.StartedAt); !at.IsZero() && !at.After(b.first) {
				b.origin = at
				origins++
				if st.DurationS > 0 && st.Unsent == 0 && st.RunRequests == 0 {
					// Ran its whole duration: it was sending until then.
					b.end = at.Add(time.Duration(st.DurationS * float64(time.Second)))
				}
			}
		}
	}
	if len(byShard) > 1 {
		var lo, hi, end, last time.Time
		for _, b := range byShard {
			if b.end.After(last) {
				last = b.end
			}
			if lo.IsZero() || b.origin.Before(lo) {
				lo = b.origin
			}
			if hi.IsZero() || b.origin.After(hi) {
				hi = b.origin
			}
			if end.IsZero() || b.end.Before(end) {
				end = b.end
			}
		}
		skew := hi.Sub(lo).Seconds()
		sc.StartSkewS = &skew
		if origins < len(byShard) {
			sc.Notes = append(sc.Notes, fmt.Sprintf("%d of %d shards do not say when their schedule started: their first sends stand in for it, so the start skew includes their first gaps", len(byShard)-origins, len(byShard)))
		}
		n := 0
		for _, s := range spans {
			if !s.start.Before(hi) && !s.start.After(end) {
				n++
			}
		}
		over := ""
		if r, ok2, why := stats.WindowRate(n, end.Sub(hi)); ok2 {
			rate, ok, reason = r, true, ""
			w := end.Sub(hi).Seconds()
			sc.RateWindowS = &w
			over = fmt.Sprintf(": the achieved rate is measured over the %.3g s in which every shard was sending", end.Sub(hi).Seconds())
		} else if ok {
			// No common window to speak of (shards of one request or
			// two, or shards that did not overlap): the whole window's
			// rate, said so.
			if end.Before(hi) {
				why = fmt.Sprintf("a shard stopped %.3g s before the last one started", hi.Sub(end).Seconds())
			}
			sc.Notes = append(sc.Notes, fmt.Sprintf("no window in which every shard was sending holds a rate (%s): the achieved rate is over the whole %.3g s sending window", why, sc.SendingWindowS))
		}
		if run := last.Sub(lo).Seconds(); run > 0 && skew > run/10 {
			sc.Notes = append(sc.Notes, fmt.Sprintf("the shards started %.3g s apart, %.0f%% of the %.3g s run%s (start the shards together, e.g. with --start-at)",
				skew, 100*skew/run, run, over))
		}
	}
	if sc.Mode == "closed" {
		// No arrival rate to check (loadgen.Run.AchievedRate).
		rate, ok, reason = 0, false, "a closed loop has no arrival rate: each stream sent its next request when its last one ended (request_throughput is the rate the server served)"
		sc.RateWindowS = nil
	}
	if ok {
		sc.AchievedRate = &rate
	} else {
		sc.AchievedRateReason = reason
	}

	// Peak in flight: a sweep over the intervals, ends before starts at
	// one instant ([start, end)).
	type edge struct {
		at    time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s.start, 1}, edge{s.end, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	in := 0
	for _, e := range edges {
		in += e.delta
		sc.PeakInFlight = max(sc.PeakInFlight, in)
	}

	// Lag, from the records.
	if sc.Mode == "open" || sc.Mode == "trace" { // arrivals on a schedule (seeded or a trace's)
		lags := make([]float64, 0, len(spans))
		for _, s := range spans {
			if s.rec.LagMS != nil {
				lags = append(lags, *s.rec.LagMS)
			}
		}
		switch {
		case len(lags) == len(spans):
			d := results.NewDist(lags)
			sc.LagMS = &results.LagStats{P50: d.P50, P95: d.P95, P99: d.P99, Max: d.Max}
		default:
			sc.Notes = append(sc.Notes, fmt.Sprintf("lag not recomputed: %d of %d records carry no lag_ms", len(spans)-len(lags), len(spans)))
		}
	}

	if sc.GoodputSLO != nil {
		met := 0
		for _, s := range spans {
			if metGoodput(sc.GoodputSLO, s.rec) {
				met++
			}
		}
		if g, ok, why := stats.Throughput(met, len(spans), ended.Sub(first)); ok {
			sc.Goodput = &g
		} else {
			sc.GoodputReason = why
		}
	}
	return &sc, nil
}

// metGoodput reports whether r succeeded within every limit of slo
// (keys ttft_ms, tpot_ms, e2el_ms; a limit is met at <=; TPOT only with
// two tokens or more), as summary.MetSLO judges a sample.
func metGoodput(slo map[string]float64, r *results.Record) bool {
	if !r.OK || r.Error != "" || r.Interrupted {
		return false
	}
	m := r.Metrics
	if v, ok := slo["ttft_ms"]; ok && v > 0 && m.TTFTms > v {
		return false
	}
	if v, ok := slo["tpot_ms"]; ok && v > 0 && m.CompletionTokens >= 2 && !math.IsNaN(m.TPOTms) && m.TPOTms > v {
		return false
	}
	if v, ok := slo["e2el_ms"]; ok && v > 0 && m.E2ELms > v {
		return false
	}
	return true
}
