// Package compare is the engine of "is the candidate worse?": it
// compares two groups of workload payloads (a base and a candidate, each
// one or more runs of the same workload) metric by metric and case by
// case, and returns a results.Comparison. benchserve compare and
// benchtest.Baseline are its doors.
//
// Per case and metric it pairs nothing and tests the two samples
// (Mann–Whitney U, Hodges–Lehmann shift); run-wide it pairs the cases
// that ran on both sides (Wilcoxon signed-rank over the per-case
// medians, paired Hodges–Lehmann) and falls back to the unpaired tests
// when the case sets differ. Percentiles beyond the median are compared
// by their distribution-free intervals over the effective sample size
// (autocorrelated latencies count less), error rates by Newcombe's
// interval for two proportions. The family of all rows is held at
// Alpha: Holm over the rows with a p-value, Bonferroni over the
// interval-only rows, each group getting its share of Alpha. A row
// whose sides cannot support a verdict says "too few samples".
//
// A case that passed in the base and fails in the candidate, and a
// protocol contract that went from pass to fail, are regressions
// whatever the numbers; answers that changed under greedy decoding
// (temperature 0 and a seed) are listed. Runs whose every record is a
// protocol contract (conformance results) make no metric rows: their
// contracts' changed outcomes are listed instead.
package compare
