package results

// Comparison is the answer to "is the candidate worse than the base?"
// for two groups of runs of the same kind (benchserve compare,
// benchtest.Baseline): per case and metric the change with its
// confidence interval and a direction-aware verdict, and the changes
// that are regressions whatever the numbers (a case or contract that
// passed and now fails). Values are in each metric's unit (Change.Unit).
type Comparison struct {
	// Kind is what was compared: "workload" (workload payloads),
	// "conformance" (conformance results, every record a protocol
	// contract: no metric rows, the contracts' verdicts compared),
	// "sweep" (prompt sweeps, one row per sweep point and metric, Case
	// naming the point: "short c=4") or "capacity" (capacity searches,
	// one capacity_rps or capacity_concurrency row).
	Kind string `json:"kind"`
	// Base and Candidate name the files (or runs) of each side, in the
	// order given; several files a side are one group (repeated runs).
	Base      []string `json:"base"`
	Candidate []string `json:"candidate"`
	// Alpha is the familywise significance level of the verdicts: the
	// chance that any row of an unchanged server is called better or
	// worse is at most Alpha (of m rows tested, the mp with a p-value
	// share Alpha·mp/m under Holm's correction, the interval-only rows
	// Alpha/m each).
	Alpha float64 `json:"alpha"`
	// Allowed lists the differences between the sides that were
	// accepted (--allow-different), e.g. "model: a → b", and what a
	// comparison could not check (runs from a SQLite history keep no
	// workload digest); omitted when none.
	Allowed []string `json:"allowed,omitempty"`
	// Changes are the metrics' rows, run-wide rows (Case "") first, then
	// case by case in the base's order.
	Changes []Change `json:"changes"`
	// Regressions are the transitions that make the candidate worse
	// whatever the statistics, one sentence each: a case that passed in
	// every base run and fails in the candidate, a protocol contract
	// whose verdict went from pass to fail, a candidate run whose every
	// request failed (first: it answered nothing). [] when none.
	Regressions []string `json:"regressions"`
	// AnswerChanges lists the cases whose answers differ although they
	// were asked for greedy decoding (temperature 0 and a seed), one
	// sentence each; omitted when none. They are listed, not regressions.
	AnswerChanges []string `json:"answer_changes,omitempty"`
	// ContractChanges lists every protocol contract whose outcome
	// differs between the sides ("pass", "fail", "warn", "info", "skip",
	// "not checked", "unsupported" or "absent"): 'contract "tools.named": fail → pass'; omitted when
	// none. Only pass → fail is also a regression.
	ContractChanges []string `json:"contract_changes,omitempty"`
	// GateFailures are the --fail-on gates (benchtest.Baseline gates)
	// the candidate failed: "ttft_p95_ms +10%: case greet: +18.2% [+9.1%,
	// +27.0%], worse"; omitted when none.
	GateFailures []string `json:"gate_failures,omitempty"`
	// GateUndecided are the gates no row could decide, one sentence
	// each: these inputs have no row of the gate's metric, or every row
	// of it had too few samples to call a change ("ttft_p95_ms +10%: no
	// row decided: every ttft_p95_ms row had too few samples"); omitted
	// when none. Such a comparison is not "no regression": benchserve
	// compare exits 2 and benchtest.Baseline fails the gate's subtest.
	GateUndecided []string `json:"gate_undecided,omitempty"`
	// Regressed reports the verdict of the whole comparison: a
	// regression, a failed gate, or (without gates) a row called worse.
	Regressed bool `json:"regressed"`
}

// Change is one row of a Comparison: one metric of one case (or of the
// whole run) on both sides. Null numbers (nil) mean the side had no
// sample for it, or the interval cannot be bounded.
type Change struct {
	// Case is the case id, "" for a run-wide row.
	Case string `json:"case"`
	// Metric names the row as --fail-on does: "ttft_p50_ms",
	// "ttft_p95_ms", "tpot_p99_ms", "itl_p50_ms", "e2el_p95_ms",
	// "gen_tps" (the median decode rate), "error_rate" (failed
	// requests' share), "throughput_rps" and "goodput_rps" (a load run's
	// achieved rate and goodput); a sweep's "ttft_mean_ms",
	// "tpot_mean_ms", "e2el_mean_ms", "gen_tps", "prompt_tps",
	// "throughput_tps" and "requests_per_s" (its rows' columns, one
	// sample per repetition); a capacity search's "capacity_rps" or
	// "capacity_concurrency" (higher is better).
	Metric string `json:"metric"`
	// Unit is the values' unit: "ms", "tokens/s", "requests/s",
	// "streams" or "ratio".
	Unit string `json:"unit"`
	// HigherIsBetter says the metric's good direction (gen_tps,
	// throughput, goodput); latencies and error rates are lower-is-better.
	HigherIsBetter bool `json:"higher_is_better"`
	// BaseN and CandidateN are the samples each side contributed
	// (requests, chunk gaps, or runs for run-level rates); Paired says the
	// test paired the sides case by case (the same cases ran on both).
	BaseN      int  `json:"base_n"`
	CandidateN int  `json:"candidate_n"`
	Paired     bool `json:"paired,omitempty"`
	// Base and Candidate are the sides' values of the metric (the
	// percentile, median or rate).
	Base      *float64 `json:"base"`
	Candidate *float64 `json:"candidate"`
	// Delta is the estimated change, candidate − base, and Low and High
	// its confidence interval, in Unit: at 1 − Alpha for rows with a P,
	// at the row's corrected level 1 − Alpha/m (m rows tested) for
	// interval-only rows, whose verdict it is. Relative is Delta / Base
	// (nil when Base is 0 or missing).
	Delta    *float64 `json:"delta"`
	Low      *float64 `json:"low"`
	High     *float64 `json:"high"`
	Relative *float64 `json:"relative"`
	// Test names the method behind Delta and the verdict, e.g.
	// "mann-whitney u, hodges-lehmann"; P is its p-value after Holm's
	// correction, nil for interval-only rows (percentiles beyond the
	// median: significant when the interval at the row's share of Alpha
	// excludes 0).
	Test string   `json:"test"`
	P    *float64 `json:"p,omitempty"`
	// Verdict is "better", "worse", "~" (no significant change) or "too
	// few samples" (the sides cannot support a verdict at Alpha; never
	// silently "~").
	Verdict string `json:"verdict"`
}
