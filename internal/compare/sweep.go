package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/results"
)

// SweepRun is one prompt sweep of a side (its rows, every repetition)
// and the name it is reported by.
type SweepRun struct {
	Label string
	Rows  []results.SweepResult
}

// sweepMetrics are a sweep comparison's rows per point, in table order:
// each a sweep row's column (a mean over the point's requests), one
// sample per row (repetition).
var sweepMetrics = []string{"ttft_mean_ms", "tpot_mean_ms", "e2el_mean_ms", "gen_tps", "prompt_tps", "throughput_tps", "requests_per_s"}

// sweepValue is a row's value of a sweepMetrics metric.
func sweepValue(r results.SweepResult, metric string) float64 {
	switch metric {
	case "ttft_mean_ms":
		return r.TTFTms
	case "tpot_mean_ms":
		return r.TPOTms
	case "e2el_mean_ms":
		return r.E2ELms
	case "gen_tps":
		return r.GenTPS
	case "prompt_tps":
		return r.PromptTPS
	case "throughput_tps":
		return r.ThroughputTPS
	}
	return r.RequestsPerS
}

// pointKey is what makes two rows the same sweep point: the prompt set,
// the load (concurrency, and the rate of a point run at one) and the
// request settings.
type pointKey struct {
	set, rate, extra, thinking string
	concurrency, maxTokens     int
}

func keyOf(r results.SweepResult) pointKey {
	k := pointKey{set: r.PromptSet, concurrency: r.Concurrency, maxTokens: r.MaxTokens, extra: r.ExtraBody, thinking: "null"}
	if r.RequestRate != nil {
		k.rate = strconv.FormatFloat(*r.RequestRate, 'g', -1, 64)
	}
	if r.EnableThinking != nil {
		k.thinking = strconv.FormatBool(*r.EnableThinking)
	}
	return k
}

// Sweeps compares two groups of prompt sweeps point by point: per sweep
// point (prompt set, concurrency or rate, request settings) that ran on
// both sides and per metric, the rows' values (one per repetition) are
// tested unpaired (Mann–Whitney U, Hodges–Lehmann), the family held at
// Alpha as Workloads does; fewer than about 4 repetitions a side cannot
// bound a shift and say "too few samples". A point whose every base row
// validated and some candidate row did not is a regression whatever the
// numbers. Errors wrap ErrBadInput (a sweep without rows) or
// ErrIncomparable (a different model, server, prompt sets or settings,
// unless allowed; no point in common).
func Sweeps(base, candidate []SweepRun, opt Options) (*results.Comparison, error) {
	if err := checkAlpha(&opt); err != nil {
		return nil, err
	}
	var ids []labelled
	for _, side := range [][]SweepRun{base, candidate} {
		if len(side) == 0 {
			return nil, fmt.Errorf("%w: a side has no runs", ErrBadInput)
		}
		for _, r := range side {
			if len(r.Rows) == 0 {
				return nil, fmt.Errorf("%w: %s: the sweep has no rows", ErrBadInput, r.Label)
			}
			ids = append(ids, labelled{r.Label, sweepIdentity(r.Rows)})
		}
	}
	allowed, err := checkIdentities(ids, opt.Allow)
	if err != nil {
		return nil, err
	}
	b, bOrder := sweepPoints(base)
	c, _ := sweepPoints(candidate)
	cmp := &results.Comparison{Kind: "sweep", Alpha: opt.Alpha, Allowed: allowed, Changes: []results.Change{}, Regressions: []string{}}
	for _, r := range base {
		cmp.Base = append(cmp.Base, r.Label)
	}
	for _, r := range candidate {
		cmp.Candidate = append(cmp.Candidate, r.Label)
	}
	var common []pointKey
	for _, k := range bOrder {
		if _, ok := c[k]; ok {
			common = append(common, k)
		}
	}
	if len(common) == 0 {
		return nil, fmt.Errorf("%w: no sweep point (prompt set, concurrency or rate, max_tokens, extra body) ran on both sides", ErrIncomparable)
	}
	var rows []*row
	for _, k := range common {
		name := pointName(k, common)
		br, cr := b[k], c[k]
		if allValid(br) && !allValid(cr) {
			cmp.Regressions = append(cmp.Regressions, fmt.Sprintf("point %s: validated in the base (%d of %d rows), fails validation in the candidate (%d of %d rows)",
				strconv.Quote(present.Name(name)), len(br), len(br), invalid(cr), len(cr)))
		}
		for _, m := range sweepMetrics {
			r := medianRow(sweepSamples(br, m), sweepSamples(cr, m))
			r.Case, r.Metric = name, m
			r.Unit, r.HigherIsBetter = unitOf(m)
			rows = append(rows, r)
		}
	}
	finish(cmp, rows, opt)
	return cmp, nil
}

// sweepPoints groups a side's rows by point, in first-seen order.
func sweepPoints(runs []SweepRun) (map[pointKey][]results.SweepResult, []pointKey) {
	by := map[pointKey][]results.SweepResult{}
	var order []pointKey
	for _, r := range runs {
		for _, row := range r.Rows {
			k := keyOf(row)
			if _, ok := by[k]; !ok {
				order = append(order, k)
			}
			by[k] = append(by[k], row)
		}
	}
	return by, order
}

// pointName names a point by its prompt set and load ("short c=4",
// "short rate=2 c=64"), adding the request settings that differ among
// the points compared.
func pointName(k pointKey, all []pointKey) string {
	s := k.set
	if k.rate != "" {
		s += " rate=" + k.rate
	}
	s += " c=" + strconv.Itoa(k.concurrency)
	differs := func(f func(pointKey) string) bool {
		return slices.ContainsFunc(all, func(o pointKey) bool { return f(o) != f(k) })
	}
	if differs(func(p pointKey) string { return strconv.Itoa(p.maxTokens) }) {
		s += " max_tokens=" + strconv.Itoa(k.maxTokens)
	}
	if differs(func(p pointKey) string { return p.thinking }) {
		s += " enable_thinking=" + k.thinking
	}
	if differs(func(p pointKey) string { return p.extra }) {
		s += " extra_body=" + k.extra
	}
	return s
}

// sweepSamples are a point's rows' values of metric; a row that measured
// nothing (every request failed: its e2e latency is 0) gives none.
func sweepSamples(rows []results.SweepResult, metric string) []float64 {
	var out []float64
	for _, r := range rows {
		if r.E2ELms == 0 {
			continue
		}
		if v := sweepValue(r, metric); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

func allValid(rows []results.SweepResult) bool {
	return invalid(rows) == 0
}

func invalid(rows []results.SweepResult) int {
	n := 0
	for _, r := range rows {
		if !r.Validated {
			n++
		}
	}
	return n
}

// sweepIdentity is what must match between sweeps, by AllowNames: the
// model, the server's runtime, the prompt sets and the request
// settings.
func sweepIdentity(rows []results.SweepResult) map[string]string {
	model, server, sets, settings := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		model[r.ModelID] = true
		server[fmt.Sprintf("engine_type=%s kv_quant=%s cache_type=%s mtp=%t specprefill=%t",
			r.EngineType, r.KVQuant, r.CacheType, r.MTPEnabled, r.SpecPrefill)] = true
		sets[r.PromptSet] = true
		k := keyOf(r)
		settings[fmt.Sprintf("max_tokens=%d enable_thinking=%s extra_body=%s", k.maxTokens, k.thinking, k.extra)] = true
	}
	return map[string]string{"model": joinKeys(model), "server": joinKeys(server),
		"workload": strings.Join(sortedKeys(sets), ","), "settings": joinKeys(settings)}
}
