package benchtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// envUpdateBaseline, set to 1 or true, makes a run with Baseline write
// its payload as the new baseline instead of comparing with it.
const envUpdateBaseline = "BENCHSERVE_UPDATE_BASELINE"

// Baseline compares the run (RunWorkload, RunConformance) with the
// workload payload stored at path, as benchserve compare does, in
// subtests of baseline/: one per gate, named by its metric
// (baseline/ttft_p50_ms), that fails when the gate fails (the change is
// significant and beyond the tolerance: "ttft_p50_ms +10%", "gen_tps
// -5%", "e2el_p50_ms +20" in ms) or when no row could decide it (too few
// samples: a median is decided from 5 requests a case a side, a p95 from
// about 220, a p99 from more), and baseline/regressions, which fails
// when a case or contract that passed in the baseline fails now and logs
// greedy answers that changed. The comparison's table is logged. The
// baseline must be of the same workload (content digest), model and
// settings, else baseline/regressions fails naming the differences.
//
// With BENCHSERVE_UPDATE_BASELINE=1 the run's payload is written to
// path (JSON, atomically) instead, and nothing is compared. A missing
// baseline fails the test saying so. Gates that do not parse fail the
// test before anything runs. Baseline does not apply to benchmarks.
func Baseline(path string, gates ...string) Option {
	return func(c *config) {
		c.given("Baseline")
		// The comparison engine is reached only from here, so a test
		// binary that never calls Baseline does not link it.
		b := &baselineSetting{path: path, check: checkBaseline}
		for _, g := range gates {
			parsed, err := compare.ParseGate(g)
			if err != nil {
				b.err = fmt.Errorf("benchtest: Baseline: %w", err)
				break
			}
			b.gates = append(b.gates, parsed)
		}
		c.baseline = b
	}
}

// baselineSetting is what Baseline set: the stored payload's path, the
// parsed gates (or the error of one that did not parse) and the check
// run after the run.
type baselineSetting struct {
	path  string
	gates []compare.Gate
	err   error
	check func(t *testing.T, b *baselineSetting, p *results.Payload)
}

// checkBaseline is Baseline's part after the run.
func checkBaseline(t *testing.T, b *baselineSetting, p *results.Payload) {
	t.Helper()
	path := paths.ExpandHome(b.path)
	if v := os.Getenv(envUpdateBaseline); v == "1" || v == "true" {
		// The payload as --output writes it (nulls for unmeasured values).
		data, err := resultio.FormatJSON(p)
		if err == nil {
			err = resultio.WriteFileAtomic(path, data, 0o644)
		}
		if err != nil {
			say(t).Errorf("benchtest: baseline: writing %s: %v", path, err)
			return
		}
		say(t).Logf("benchtest: baseline written to %s ($%s)", path, envUpdateBaseline)
		return
	}
	t.Run("baseline", func(t *testing.T) {
		base, err := readBaseline(path)
		if err != nil {
			say(t).Errorf("benchtest: baseline: %v", err)
			return
		}
		cmp, err := compare.Workloads([]compare.Run{{Label: path, Payload: base}},
			[]compare.Run{{Label: "this run", Payload: p}}, compare.Options{Gates: b.gates})
		if err != nil {
			t.Run("regressions", func(t *testing.T) { say(t).Errorf("benchtest: baseline: %v", err) })
			return
		}
		say(t).Logf("benchtest: compared with %s:\n%s", path, compare.Table(cmp))
		for _, g := range b.gates {
			t.Run(g.Metric, func(t *testing.T) {
				for _, f := range cmp.GateFailures {
					if strings.HasPrefix(f, g.Text+":") {
						say(t).Errorf("benchtest: baseline %s", f)
					}
				}
				for _, u := range cmp.GateUndecided {
					if strings.HasPrefix(u, g.Text+":") {
						say(t).Errorf("benchtest: baseline gate undecided: %s", u)
					}
				}
			})
		}
		t.Run("regressions", func(t *testing.T) {
			for _, a := range cmp.AnswerChanges {
				say(t).Logf("benchtest: %s", a)
			}
			for _, r := range cmp.Regressions {
				say(t).Errorf("benchtest: regression against the baseline: %s", r)
			}
		})
	})
}

// readBaseline reads a stored workload payload.
func readBaseline(path string) (*results.Payload, error) {
	data, err := resultio.ReadFileLimit(path, 256<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: run once with %s=1 to write it", path, envUpdateBaseline)
	}
	if err != nil {
		return nil, err
	}
	var p results.Payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: not a workload payload: %v", path, err)
	}
	if p.Results == nil {
		return nil, fmt.Errorf("%s: results: missing (not a workload payload)", path)
	}
	return &p, nil
}
