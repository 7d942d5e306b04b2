package resultio

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
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

// MergePayloads is MergeNamed with the payloads named "payload 1",
// "payload 2", … in argument order.
func MergePayloads(ps ...*results.Payload) (*results.Payload, error) {
	names := make([]string, len(ps))
	for i := range ps {
		names[i] = fmt.Sprintf("payload %d", i+1)
	}
	return MergeNamed(names, ps)
}

// MergeNamed joins the payloads of one run's shards (each written by a
// process run with the same --run-id and --shard I/N) into one payload:
// every record once, the summary recomputed exactly from all of them
// (Summarize), the earliest timestamp, the cache events of every shard,
// and the schedule's run-level figures recomputed from the records
// (ScheduleFromRecords: achieved rate over the sending window, goodput,
// peak in flight, lag, start skew); the counts of requests scheduled,
// late, dropped and unsent are the shards' sums. names[i] names ps[i] in
// errors (a file path).
//
// It refuses, with an error naming both inputs: payloads of different
// runs; of different workloads (by workload.digest, the resolved
// content, when both carry one, else by name and path); a mix of sharded
// and unsharded payloads; schedules whose settings differ (mode, the
// run's rate, burstiness, seed, in-flight cap, duration, request count,
// goodput SLO, shard count); a load payload holding fewer records than
// its schedule says it sent, unless it is marked incomplete; a shard of
// the run missing. It refuses a damaged record (a negative latency)
// naming the input and the record. A record is identified by (shard,
// case, repetition): the same record in two payloads (a file given
// twice) is kept once, two different records under one identity are an
// error. Records keep their payloads' order, grouped by shard (unsharded
// records first). The merged payload is incomplete when an input is.
//
// The inputs' run-level SLO verdicts (Payload.SLO) held for one shard
// only; the merged payload has none: evaluate the thresholds again on it
// (summary.CheckPayload, with SLOThresholds(ps...)). The inputs are not
// modified; the merged payload shares their records' slices and maps.
func MergeNamed(names []string, ps []*results.Payload) (*results.Payload, error) {
	if len(ps) == 0 {
		return nil, errors.New("results: merge: no payloads")
	}
	if len(names) != len(ps) {
		return nil, fmt.Errorf("results: merge: %d names for %d payloads", len(names), len(ps))
	}
	for i, p := range ps {
		if p == nil {
			return nil, fmt.Errorf("results: merge: %s is nil", names[i])
		}
	}
	first := ps[0]
	for i, p := range ps[1:] {
		name := names[i+1]
		switch {
		case p.RunID != first.RunID:
			return nil, fmt.Errorf("results: merge: %s is run %q but %s is run %q: only the shards of one run merge (start every shard with the same --run-id)", name, p.RunID, names[0], first.RunID)
		case p.Workload.Digest != "" && first.Workload.Digest != "":
			if p.Workload.Digest != first.Workload.Digest {
				return nil, fmt.Errorf("results: merge: run %q: %s ran workload %q with content %s but %s ran workload %q with content %s: the shards of one run must run the same workload (was the file edited between them?)", p.RunID, name, p.Workload.Name, p.Workload.Digest, names[0], first.Workload.Name, first.Workload.Digest)
			}
		case p.Workload.Name != first.Workload.Name || p.Workload.Path != first.Workload.Path:
			return nil, fmt.Errorf("results: merge: run %q: %s is workload %q (%s) but %s is workload %q (%s): only one workload's shards merge", p.RunID, name, p.Workload.Name, p.Workload.Path, names[0], first.Workload.Name, first.Workload.Path)
		}
		if sharded(p) != sharded(first) {
			a, b := name, names[0]
			if sharded(first) {
				a, b = b, a
			}
			return nil, fmt.Errorf("results: merge: run %q: %s is a shard of the run but %s is unsharded: an unsharded run under the same run id is another run, not a shard", p.RunID, a, b)
		}
		if err := sameSettings(first.Schedule, p.Schedule); err != "" {
			return nil, fmt.Errorf("results: merge: run %q: %s and %s were run with different settings (%s): only the shards of one run merge", p.RunID, names[0], name, err)
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
	var incomplete []string
	stamp, stampAt := first.Timestamp, parseISO(first.Timestamp)
	var twice []string // inputs that were the same payload as an earlier one
	for i, p := range ps {
		if j := slices.IndexFunc(ps[:i], func(q *results.Payload) bool { return q == p || reflect.DeepEqual(q, p) }); j >= 0 {
			twice = append(twice, fmt.Sprintf("%s is the same payload as %s", names[i], names[j]))
			continue // the same payload twice: kept once
		}
		kept = append(kept, p)
		if p.Incomplete != nil {
			incomplete = append(incomplete, names[i])
		}
		if err := checkRecords(names[i], p); err != nil {
			return nil, err
		}
		for j, r := range p.Results {
			if r.RunID != "" && r.RunID != p.RunID {
				return nil, fmt.Errorf("results: merge: %s (run %q): record %d is of run %q", names[i], p.RunID, j, r.RunID)
			}
			k := keyOf(r)
			if prev, dup := seen[k]; dup {
				if reflect.DeepEqual(prev.record, r) {
					continue
				}
				return nil, fmt.Errorf("results: merge: run %q: %s appears with different results in %s and %s (the same shard run twice?)", p.RunID, k, names[prev.payload], names[i])
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
		if len(twice) > 0 {
			// "shard 0/2 missing" when shard 1/2 was given twice: say so.
			err = fmt.Errorf("%w; %s", err, strings.Join(twice, "; "))
		}
		return nil, err
	}
	if sched != nil {
		shards := map[int]*results.Schedule{}
		for _, p := range kept {
			if i, _, ok := shardOf(p.Schedule); ok {
				shards[i] = p.Schedule
				if p.Incomplete != nil {
					// Rebuilt from the journal of a shard that was stopped:
					// it was sending until its last send, not its duration.
					c := *p.Schedule
					c.DurationS = 0
					shards[i] = &c
				}
			}
		}
		if sched, err = scheduleFromRecords(sched, records, shards); err != nil {
			return nil, fmt.Errorf("results: merge: run %q: %w", first.RunID, err)
		}
	}
	merged.Schedule = sched
	if len(incomplete) > 0 {
		merged.Incomplete = &results.Incomplete{
			Reason:  "merged from incomplete payloads (" + strings.Join(incomplete, ", ") + "): records of the run are absent",
			Records: len(records),
		}
		merged.Summary.Passed, merged.Summary.QualityPassed = false, false
	}
	return merged, nil
}

// sharded reports whether p is a shard of a run (its schedule names a
// shard, or a record does).
func sharded(p *results.Payload) bool {
	if p.Schedule != nil && p.Schedule.Shard != "" {
		return true
	}
	return slices.ContainsFunc(p.Results, func(r results.Record) bool { return r.Shard != nil })
}

// shardOf parses a schedule's "I/N".
func shardOf(sc *results.Schedule) (i, n int, ok bool) {
	if sc == nil || sc.Shard == "" {
		return 0, 0, false
	}
	_, err := fmt.Sscanf(sc.Shard, "%d/%d", &i, &n)
	return i, n, err == nil
}

// sameSettings returns "" when a and b are schedules of one run, else
// what differs, in words.
func sameSettings(a, b *results.Schedule) string {
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil || b == nil:
		return "one is a load run with a schedule, the other is not"
	}
	rate := func(sc *results.Schedule) string {
		r := sc.TargetRate
		if sc.RunRate != nil {
			r = sc.RunRate
		}
		if r == nil {
			return "inf"
		}
		return strconv.FormatFloat(*r, 'g', -1, 64)
	}
	_, na, _ := shardOf(a)
	_, nb, _ := shardOf(b)
	var diffs []string
	add := func(what string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			diffs = append(diffs, fmt.Sprintf("%s %v and %v", what, x, y))
		}
	}
	add("mode", a.Mode, b.Mode)
	add("request rate", rate(a), rate(b))
	add("burstiness", a.Burstiness, b.Burstiness)
	add("seed", a.Seed, b.Seed)
	add("max concurrency", a.MaxConcurrency, b.MaxConcurrency)
	add("duration (s)", a.DurationS, b.DurationS)
	add("request count", a.RunRequests, b.RunRequests)
	add("shard count", na, nb)
	add("goodput SLO", a.GoodputSLO, b.GoodputSLO)
	return strings.Join(diffs, "; ")
}

// checkRecords refuses a damaged record of the payload called name (a
// negative or NaN latency, which would enter the statistics as a
// measurement) and a load payload holding fewer records than its
// schedule says it sent, unless the payload says it is incomplete.
func checkRecords(name string, p *results.Payload) error {
	for j, r := range p.Results {
		m := r.Metrics
		for _, f := range []struct {
			key string
			v   float64
		}{{"ttft_ms", m.TTFTms}, {"e2e_latency_ms", m.E2ELms}, {"tpot_ms", m.TPOTms}} {
			if f.v < 0 || (f.key != "tpot_ms" && math.IsNaN(f.v)) {
				return fmt.Errorf("results: merge: %s: record %d (%s): metrics.%s is %v: a latency is a measured duration >= 0; the record is damaged", name, j, keyOf(r), f.key, f.v)
			}
		}
	}
	sc := p.Schedule
	if sc == nil || p.Incomplete != nil {
		return nil
	}
	sent := sc.Sent
	if sent == 0 {
		sent = sc.Requests - sc.Dropped - sc.Unsent
	}
	if len(p.Results) < sent {
		which := ""
		if sc.Shard != "" {
			which = " (shard " + sc.Shard + ")"
		}
		return fmt.Errorf("results: merge: %s%s: %d records, but its schedule says %d requests were sent: the payload lost records (recover the shard from its journal, which marks it incomplete)", name, which, len(p.Results), sent)
	}
	return nil
}

// mergeSchedules joins the shards' schedule blocks into the run's
// settings: it refuses a set that lacks a shard of the run (each schedule
// says "I/N"), takes the run's rate as the target, and sums the counts
// (requests scheduled, late, dropped, unsent); the in-flight bound is
// per process. The figures that depend on when requests ran are left
// to ScheduleFromRecords. nil when no payload has a schedule.
func mergeSchedules(runID string, ps []*results.Payload) (*results.Schedule, error) {
	var out *results.Schedule
	count, seen := 0, map[int]bool{}
	var invalid []string // the shards whose client could not keep up
	for _, p := range ps {
		sc := p.Schedule
		if sc == nil {
			continue
		}
		if sc.ClientValid != nil && !*sc.ClientValid {
			invalid = append(invalid, "shard "+sc.Shard+": "+sc.ClientReason)
		}
		if i, n, ok := shardOf(sc); ok {
			if count != 0 && n != count {
				return nil, fmt.Errorf("results: merge: run %q: shards of %d and of %d processes: only one run's shards merge", runID, count, n)
			}
			count, seen[i] = n, true
		}
		if out == nil {
			c := *sc
			c.Shard = ""
			if sc.RunRate != nil {
				r := *sc.RunRate
				c.TargetRate, c.RunRate = &r, nil
			}
			c.Notes, c.StartedAt = nil, ""
			// One shard's client verdict is not the run's; only an
			// invalid shard is carried (below).
			c.ClientValid, c.ClientReason, c.ClientCPUUtil, c.ClientGCPauseMS, c.ClientGCPauseMaxMS = nil, "", nil, nil, nil
			out = &c
			continue
		}
		out.Requests += sc.Requests
		out.Late += sc.Late
		out.Dropped += sc.Dropped
		out.Unsent += sc.Unsent
		out.UnsentEstimated = out.UnsentEstimated || sc.UnsentEstimated
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
	if out != nil && len(invalid) > 0 {
		no := false
		out.ClientValid, out.ClientReason = &no, strings.Join(invalid, "; ")
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
			if !slices.Contains(out, s.Expr) {
				out = append(out, s.Expr)
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

// DecodeMergeInput decodes data, the JSON workload payload called name
// (a file path), for MergeNamed, refusing what decoding alone would turn
// into measurements: a record without a metrics object, or whose
// ttft_ms or e2e_latency_ms is null or not a number, would otherwise
// count as 0 ms. The error names the input and the record.
func DecodeMergeInput(name string, data []byte) (*results.Payload, error) {
	var p results.Payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: not a results payload: %w", name, err)
	}
	var raw struct {
		Results []struct {
			CaseID     string                     `json:"case_id"`
			Repetition int                        `json:"repetition"`
			Metrics    map[string]json.RawMessage `json:"metrics"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not a results payload: %w", name, err)
	}
	if len(p.Results) > 0 && !slices.ContainsFunc(p.Results, func(r results.Record) bool { return r.Contract == nil }) {
		// Its null latencies are the verdicts' probes, not damage.
		return nil, fmt.Errorf("%s: a conformance result (every record a protocol contract, checked, not timed): merge joins the shards of a load run; compare conformance results with benchserve compare or conformance matrix", name)
	}
	for j, r := range raw.Results {
		if r.Metrics == nil {
			return nil, fmt.Errorf("%s: record %d (case %q repetition %d): no metrics: the record is damaged (a missing latency is not 0 ms)", name, j, r.CaseID, r.Repetition)
		}
		for _, key := range []string{"ttft_ms", "e2e_latency_ms"} {
			var v float64
			if err := json.Unmarshal(r.Metrics[key], &v); err != nil || bytes.Equal(bytes.TrimSpace(r.Metrics[key]), []byte("null")) || r.Metrics[key] == nil {
				return nil, fmt.Errorf("%s: record %d (case %q repetition %d): metrics.%s is %s, not a number: the record is damaged (a missing latency is not 0 ms)", name, j, r.CaseID, r.Repetition, key, orMissing(r.Metrics[key]))
			}
		}
	}
	return &p, nil
}

func orMissing(v json.RawMessage) string {
	if v == nil {
		return "missing"
	}
	return string(v)
}
