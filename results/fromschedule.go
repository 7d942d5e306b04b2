package results

// SummarizeFromSchedule sets sc's TTFTFromScheduleMS, E2ELFromScheduleMS
// and FromScheduleReason from records (fromSchedule).
func (sc *Schedule) SummarizeFromSchedule(records []Record) {
	sc.TTFTFromScheduleMS, sc.E2ELFromScheduleMS, sc.FromScheduleReason = fromSchedule(records)
}

// fromSchedule summarizes the latencies counted from when each request
// was due (Record.TTFTFromScheduleMS, Record.E2ELFromScheduleMS) over the
// records whose request succeeded and was not interrupted, as the
// summary's ttft_ms and latency_ms are over the send-time ones (the
// reference's statistics, Stats). A nil block has reason saying why: no
// record was sent on a schedule (a closed loop: each request is due when
// it is sent), or none succeeded.
func fromSchedule(records []Record) (ttft, e2el *Stats, reason string) {
	records, _ = measured(records)
	var ttfts, e2els []float64
	scheduled := false
	for _, r := range records {
		if r.E2ELFromScheduleMS == nil {
			continue
		}
		scheduled = true
		if r.Error != "" {
			continue
		}
		e2els = append(e2els, *r.E2ELFromScheduleMS)
		if r.TTFTFromScheduleMS != nil {
			ttfts = append(ttfts, *r.TTFTFromScheduleMS)
		}
	}
	switch {
	case !scheduled:
		return nil, nil, "no request was sent on a schedule (a closed loop: each request is due when it is sent, so its latency from the schedule is its latency)"
	case len(e2els) == 0:
		return nil, nil, "no request sent on the schedule succeeded"
	}
	ttft, e2el = statsOrNil(ttfts), statsOrNil(e2els)
	if ttft == nil {
		reason = "no succeeded request measured a TTFT"
	}
	return ttft, e2el, reason
}
