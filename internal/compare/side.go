package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/benchserve/benchserve/results"
)

// ErrBadInput is matched (errors.Is) by every error about an input that
// cannot be compared at all: an empty run, a run whose every request
// failed, a payload without the fields a comparison needs (an older
// payload version). The error names the file and the field.
var ErrBadInput = errors.New("compare: bad input")

// ErrIncomparable is matched by the error for sides that differ in the
// model, the workload's content or the settings (Options.Allow lets
// named differences through); the error lists every difference.
var ErrIncomparable = errors.New("compare: incomparable inputs")

// Run is one workload payload of a side and the name it is reported by
// (its file).
type Run struct {
	Label   string
	Payload *results.Payload
}

// side is one group of runs, its records pooled.
type side struct {
	runs    []Run
	records []results.Record // not interrupted, in run order
	cases   []string         // case ids in first-seen order
	byCase  map[string][]results.Record
}

func newSide(runs []Run) (*side, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: a side has no runs", ErrBadInput)
	}
	s := &side{runs: runs, byCase: map[string][]results.Record{}}
	for _, r := range runs {
		if err := checkRun(r); err != nil {
			return nil, err
		}
		for _, rec := range r.Payload.Results {
			if rec.Interrupted {
				continue
			}
			s.records = append(s.records, rec)
			if _, ok := s.byCase[rec.CaseID]; !ok {
				s.cases = append(s.cases, rec.CaseID)
			}
			s.byCase[rec.CaseID] = append(s.byCase[rec.CaseID], rec)
		}
	}
	return s, nil
}

// checkRun refuses a run that holds nothing to compare.
func checkRun(r Run) error {
	p := r.Payload
	if p == nil {
		return fmt.Errorf("%w: %s: not a workload payload", ErrBadInput, r.Label)
	}
	n, failed := 0, 0
	for _, rec := range p.Results {
		if rec.Interrupted {
			continue
		}
		n++
		if rec.Error != "" {
			failed++
		}
	}
	switch {
	case n == 0:
		return fmt.Errorf("%w: %s: results: the run holds no finished request", ErrBadInput, r.Label)
	case failed == n:
		return fmt.Errorf("%w: %s: results: every request failed (%d of %d): nothing was measured", ErrBadInput, r.Label, failed, n)
	case p.Workload.Digest == "":
		return fmt.Errorf("%w: %s: workload.digest: missing (a payload from an older benchserve or the reference): the workloads' content cannot be matched; rerun it with this benchserve", ErrBadInput, r.Label)
	}
	return nil
}

// identity is what must match between every run compared, by the name
// Options.Allow uses.
func identity(p *results.Payload) map[string]string {
	models := map[string]bool{}
	server := map[string]bool{}
	for _, r := range p.Results {
		models[r.ModelID] = true
		rt := r.Runtime
		server[fmt.Sprintf("engine_type=%s kv_quant=%s cache_type=%s mtp=%t specprefill=%t",
			rt.EngineType, rt.KVQuant, rt.CacheType, rt.MTPEnabled, rt.SpecPrefill)] = true
	}
	settings := "cache_policy=" + p.CachePolicy.Mode
	if t := p.Transport.RequestTimeoutS; t != nil {
		settings += fmt.Sprintf(" request_timeout_s=%g", *t)
	}
	if s := p.Schedule; s != nil {
		rate := "inf"
		if s.TargetRate != nil {
			rate = fmt.Sprintf("%g", *s.TargetRate)
		}
		settings += fmt.Sprintf(" load=%s request_rate=%s burstiness=%g max_concurrency=%d duration_s=%g",
			s.Mode, rate, s.Burstiness, s.MaxConcurrency, s.DurationS)
	}
	return map[string]string{
		"model":    joinKeys(models),
		"workload": p.Workload.Name + " " + p.Workload.Digest,
		"settings": settings,
		"server":   joinKeys(server),
	}
}

func joinKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// AllowNames are the differences Options.Allow may name.
var AllowNames = []string{"model", "workload", "settings", "server"}

// checkComparable returns the allowed differences as sentences, or
// ErrIncomparable listing the rest: every run is compared with the
// base's first.
func checkComparable(base, cand []Run, allow []string) ([]string, error) {
	ref := identity(base[0].Payload)
	var refused, allowed []string
	seen := map[string]bool{}
	for _, r := range append(slices.Clone(base[1:]), cand...) {
		id := identity(r.Payload)
		for _, k := range AllowNames {
			if id[k] == ref[k] {
				continue
			}
			line := fmt.Sprintf("%s: %s has %q, %s has %q", k, base[0].Label, ref[k], r.Label, id[k])
			if seen[line] {
				continue
			}
			seen[line] = true
			if slices.Contains(allow, k) {
				allowed = append(allowed, line)
			} else {
				refused = append(refused, line)
			}
		}
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("%w (--allow-different %s lets them through):\n  %s", ErrIncomparable,
			strings.Join(differing(refused), ","), strings.Join(refused, "\n  "))
	}
	return allowed, nil
}

func differing(lines []string) []string {
	var names []string
	for _, l := range lines {
		k, _, _ := strings.Cut(l, ":")
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	return names
}

// metricSamples are one metric's samples of records in their order.
func metricSamples(records []results.Record, metric string) []float64 {
	var out []float64
	for _, r := range records {
		if r.Error != "" {
			continue
		}
		m := r.Metrics
		var v float64
		switch {
		case strings.HasPrefix(metric, "ttft"):
			v = m.TTFTms
		case strings.HasPrefix(metric, "tpot"):
			v = m.TPOTms
		case strings.HasPrefix(metric, "e2el"):
			v = m.E2ELms
		case metric == "gen_tps":
			v = m.GenTPS
		case strings.HasPrefix(metric, "itl"):
			out = append(out, m.ITLms...)
			continue
		}
		if !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}
