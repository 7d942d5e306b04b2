package resultio

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/benchserve/benchserve/results"
)

// recordKey names one record of a run: its shard (-1 when unsharded),
// case and repetition.
type recordKey struct {
	shard      int
	caseID     string
	repetition int
}

func keyOf(r results.Record) recordKey {
	k := recordKey{shard: -1, caseID: r.CaseID, repetition: r.Repetition}
	if r.Shard != nil {
		k.shard = *r.Shard
	}
	return k
}

func (k recordKey) String() string {
	s := fmt.Sprintf("case %q repetition %d", k.caseID, k.repetition)
	if k.shard >= 0 {
		s += fmt.Sprintf(" of shard %d", k.shard)
	}
	return s
}

// MergePayloads joins the payloads of one run's shards (each written by a
// process run with the same --run-id and --shard I/N) into one payload:
// every record once, the summary recomputed exactly from all of them
// (Summarize), the earliest timestamp, the cache events of every shard.
//
// The payloads must share the run id, the workload name and the workload
// path; otherwise the error names the payloads (1-based, in argument
// order) and their run ids or workloads. A record is identified by
// (shard, case, repetition): the same record in two payloads (a file
// given twice) is kept once, two different records under one identity
// are an error. Records keep their payloads' order, grouped by shard
// (unsharded records first).
//
// The inputs' run-level SLO verdicts (Payload.SLO) held for one shard
// only; the merged payload has none: evaluate the thresholds again on it
// (loadgen.CheckPayload, with SLOThresholds(ps...)). The inputs are not
// modified; the merged payload shares their records' slices and maps.
func MergePayloads(ps ...*results.Payload) (*results.Payload, error) {
	if len(ps) == 0 {
		return nil, errors.New("results: merge: no payloads")
	}
	for i, p := range ps {
		if p == nil {
			return nil, fmt.Errorf("results: merge: payload %d is nil", i+1)
		}
	}
	first := ps[0]
	for i, p := range ps[1:] {
		switch {
		case p.RunID != first.RunID:
			return nil, fmt.Errorf("results: merge: payload %d is run %q but payload 1 is run %q: only the shards of one run merge (start every shard with the same --run-id)", i+2, p.RunID, first.RunID)
		case p.Workload.Name != first.Workload.Name || p.Workload.Path != first.Workload.Path:
			return nil, fmt.Errorf("results: merge: run %q: payload %d is workload %q (%s) but payload 1 is workload %q (%s): only one workload's shards merge", p.RunID, i+2, p.Workload.Name, p.Workload.Path, first.Workload.Name, first.Workload.Path)
		}
	}
	type origin struct {
		payload int
		record  results.Record
	}
	seen := map[recordKey]origin{}
	var records []results.Record
	var events []results.CacheEvent
	var kept []*results.Payload
	stamp, stampAt := first.Timestamp, parseISO(first.Timestamp)
	for i, p := range ps {
		if slices.ContainsFunc(kept, func(q *results.Payload) bool { return q == p || reflect.DeepEqual(q, p) }) {
			continue // the same payload twice
		}
		kept = append(kept, p)
		for j, r := range p.Results {
			if r.RunID != "" && r.RunID != p.RunID {
				return nil, fmt.Errorf("results: merge: payload %d (run %q): record %d is of run %q", i+1, p.RunID, j, r.RunID)
			}
			k := keyOf(r)
			if prev, dup := seen[k]; dup {
				if reflect.DeepEqual(prev.record, r) {
					continue
				}
				return nil, fmt.Errorf("results: merge: run %q: %s appears with different results in payload %d and payload %d (the same shard run twice?)", p.RunID, k, prev.payload+1, i+1)
			}
			seen[k] = origin{payload: i, record: r}
			records = append(records, r)
		}
		events = append(events, p.CachePolicy.Events...)
		if at := parseISO(p.Timestamp); !at.IsZero() && (stampAt.IsZero() || at.Before(stampAt)) {
			stamp, stampAt = p.Timestamp, at
		}
	}
	slices.SortStableFunc(records, func(a, b results.Record) int { return cmp.Compare(keyOf(a).shard, keyOf(b).shard) })
	wl := first.Workload
	for _, p := range kept {
		wl.Repetitions = max(wl.Repetitions, p.Workload.Repetitions)
	}
	merged := BuildPayload(PayloadInput{
		RunID: first.RunID, Timestamp: stamp, Workload: wl,
		RequestTimeoutS: first.Transport.RequestTimeoutS, CacheMode: first.CachePolicy.Mode,
		CacheEvents: events, Records: records,
	})
	sched, err := mergeSchedules(first.RunID, kept)
	if err != nil {
		return nil, err
	}
	merged.Schedule = sched
	return merged, nil
}

// mergeSchedules joins the shards' schedule blocks: it refuses a set
// that lacks a shard of the run (each schedule says "I/N"), and sums what
// adds up (requests, achieved rate, late, dropped, unsent, goodput, peak
// in flight as an upper bound); the lag percentiles are the worst shard's
// (the samples behind them are not in the payloads). nil when no payload
// has a schedule.
func mergeSchedules(runID string, ps []*results.Payload) (*results.Schedule, error) {
	var out *results.Schedule
	count, seen := 0, map[int]bool{}
	for _, p := range ps {
		sc := p.Schedule
		if sc == nil {
			continue
		}
		if sc.Shard != "" {
			var i, n int
			if _, err := fmt.Sscanf(sc.Shard, "%d/%d", &i, &n); err == nil {
				if count != 0 && n != count {
					return nil, fmt.Errorf("results: merge: run %q: shards of %d and of %d processes: only one run's shards merge", runID, count, n)
				}
				count, seen[i] = n, true
			}
		}
		if out == nil {
			c := *sc
			c.Shard = ""
			if sc.RunRate != nil {
				r := *sc.RunRate
				c.TargetRate, c.RunRate = &r, nil
			}
			if sc.LagMS != nil {
				l := *sc.LagMS
				c.LagMS = &l
			}
			if sc.Goodput != nil {
				g := *sc.Goodput
				c.Goodput = &g
			}
			out = &c
			continue
		}
		out.Requests += sc.Requests
		out.AchievedRate += sc.AchievedRate
		out.Late += sc.Late
		out.Dropped += sc.Dropped
		out.Unsent += sc.Unsent
		out.PeakInFlight += sc.PeakInFlight
		if sc.Goodput != nil && out.Goodput != nil {
			*out.Goodput += *sc.Goodput
		}
		if sc.LagMS != nil {
			if out.LagMS == nil {
				l := *sc.LagMS
				out.LagMS = &l
			} else {
				out.LagMS.P50 = max(out.LagMS.P50, sc.LagMS.P50)
				out.LagMS.P95 = max(out.LagMS.P95, sc.LagMS.P95)
				out.LagMS.P99 = max(out.LagMS.P99, sc.LagMS.P99)
				out.LagMS.Max = max(out.LagMS.Max, sc.LagMS.Max)
			}
		}
	}
	if count > 1 && len(seen) < count {
		var missing []string
		for i := range count {
			if !seen[i] {
				missing = append(missing, fmt.Sprintf("%d/%d", i, count))
			}
		}
		return nil, fmt.Errorf("results: merge: run %q: shard %s missing: a merge of part of a run would look complete (give every shard's payload)", runID, strings.Join(missing, ", "))
	}
	return out, nil
}

// SLOThresholds returns the run-level thresholds the payloads were
// checked against (Payload.SLO, as written), each once, in first-seen
// order: what to evaluate again on a merged payload.
func SLOThresholds(ps ...*results.Payload) []string {
	var out []string
	for _, p := range ps {
		if p == nil {
			continue
		}
		for _, s := range p.SLO {
			if !slices.Contains(out, s.Threshold) {
				out = append(out, s.Threshold)
			}
		}
	}
	return out
}

// parseISO parses an ISOTimestamp; the zero time when it does not parse.
func parseISO(s string) time.Time {
	t, err := time.Parse("2006-01-02T15:04:05.999999-07:00", s)
	if err != nil {
		return time.Time{}
	}
	return t
}
