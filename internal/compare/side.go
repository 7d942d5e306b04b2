package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/results"
)

// ErrBadInput is matched (errors.Is) by every error about an input that
// cannot be compared at all: an empty run, a base run whose every
// request failed (a candidate's is a regression), a payload without the fields a comparison needs (an older
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
	// History says the payload was rebuilt from a SQLite history's rows
	// (table bench_serve_workload), which keep no workload digest: its
	// workload is then matched by its name, case ids and requests'
	// settings (RequestsDigest) instead, and the comparison says so.
	History bool
}

// side is one group of runs, its records pooled.
type side struct {
	runs    []Run
	records []results.Record // not interrupted, in run order
	cases   []string         // case ids in first-seen order
	byCase  map[string][]results.Record
	// silent are the sentences for the runs whose every request failed
	// (a candidate's only: a base run like it is refused).
	silent []string
}

// newSide pools runs. A run whose every request failed is bad input on
// the base (nothing to compare with) and, on the candidate, the worst
// regression (side.silent) rather than a refusal.
func newSide(runs []Run, candidate bool) (*side, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: a side has no runs", ErrBadInput)
	}
	s := &side{runs: runs, byCase: map[string][]results.Record{}}
	for _, r := range runs {
		failed, n, err := checkRun(r)
		if err != nil {
			return nil, err
		}
		if failed == n {
			if !candidate {
				return nil, fmt.Errorf("%w: base %s: results: every request failed (%d of %d): nothing was measured to compare the candidate with",
					ErrBadInput, r.Label, failed, n)
			}
			s.silent = append(s.silent, fmt.Sprintf("candidate %s: every request failed (%d of %d): the candidate answered nothing (first error: %s)",
				r.Label, failed, n, firstError(r.Payload.Results)))
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

// checkRun refuses a run that holds nothing to compare, and counts its
// finished requests and the failed among them.
func checkRun(r Run) (failed, n int, err error) {
	p := r.Payload
	if p == nil {
		return 0, 0, fmt.Errorf("%w: %s: not a workload payload", ErrBadInput, r.Label)
	}
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
		return 0, 0, fmt.Errorf("%w: %s: results: the run holds no finished request", ErrBadInput, r.Label)
	case p.Workload.Digest == "" && !r.History:
		return 0, 0, fmt.Errorf("%w: %s: workload.digest: missing (a payload from an older benchserve or the reference): the workloads' content cannot be matched; rerun it with this benchserve", ErrBadInput, r.Label)
	}
	return failed, n, nil
}

// firstError is the first finished request's error of records.
func firstError(records []results.Record) string {
	for _, rec := range records {
		if !rec.Interrupted && rec.Error != "" {
			return present.Line(rec.Error)
		}
	}
	return "none recorded"
}

// identity is what must match between every run compared, by the name
// Options.Allow uses.
func identity(run Run) map[string]string {
	p := run.Payload
	workload := p.Workload.Name + " " + p.Workload.Digest
	if p.Workload.Digest == "" && run.History {
		workload = p.Workload.Name + " " + RequestsDigest(p)
	}
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
		"workload": workload,
		"settings": settings,
		"server":   joinKeys(server),
	}
}

// RequestsDigest stands in for a workload digest where a history's rows
// keep none: "requests:" and the first 12 hex digits of the SHA-256 of
// the sorted distinct (case id, max_tokens, enable_thinking, extra body)
// of its records. Two runs of one workload file agree; it does not see
// the messages, which a history does not keep.
func RequestsDigest(p *results.Payload) string {
	seen := map[string]bool{}
	for _, r := range p.Results {
		extra, _ := json.Marshal(r.Request.ExtraBody)
		think := "null"
		if t := r.Request.EnableThinking; t != nil {
			think = strconv.FormatBool(*t)
		}
		seen[fmt.Sprintf("%q %d %s %s", r.CaseID, r.Request.MaxTokens, think, extra)] = true
	}
	sum := sha256.Sum256([]byte(strings.Join(sortedKeys(seen), "\n")))
	return "requests:" + hex.EncodeToString(sum[:6])
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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
	var ids []labelled
	for _, r := range append(slices.Clone(base), cand...) {
		ids = append(ids, labelled{r.Label, identity(r)})
	}
	return checkIdentities(ids, allow)
}

// labelled is one run's identity (by AllowNames) and its label.
type labelled struct {
	label string
	id    map[string]string
}

// checkIdentities compares every identity with the first's.
func checkIdentities(ids []labelled, allow []string) ([]string, error) {
	ref := ids[0]
	var refused, allowed []string
	seen := map[string]bool{}
	for _, r := range ids[1:] {
		for _, k := range AllowNames {
			if r.id[k] == ref.id[k] {
				continue
			}
			line := fmt.Sprintf("%s: %s has %q, %s has %q", k, ref.label, ref.id[k], r.label, r.id[k])
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
		// One line: the CLI prints errors on one line (a newline would
		// show as \n), and a user reads "; " as well.
		return nil, fmt.Errorf("%w (--allow-different %s lets them through): %s", ErrIncomparable,
			strings.Join(differing(refused), ","), strings.Join(refused, "; "))
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
