// Package report renders benchserve results as one self-contained HTML
// page: per run a summary header (model, server runtime, hardware,
// pass/fail counts, policy-timeout outcomes, run id, timestamp; for a
// load run how it was sent — rate, schedule lag, client CPU and GC,
// latencies from the scheduled time — and the client's verdict, INVALID
// in the badge when the client could not keep up), a per-case
// table with the failing checks' messages, TTFT/TPOT/E2EL distributions per
// case (box plot plus points), a request timeline colored by outcome, and
// for prompt sweeps throughput and TTFT against concurrency with one line
// per prompt set, and for capacity searches (capacity.json) the capacity
// found with its status, reason and SLOs, p95 TTFT, p95 TPOT and goodput
// against the probed load with the SLO limits and the capacity drawn, and
// the probes in the order run. Comparisons (Options.Comparisons, the
// results.Comparison of benchserve compare) are shown on top with their
// verdict in the page's header: per case and metric the change with its
// confidence interval and the verdict better, worse, ~ or too few samples,
// the pass→fail regressions, and the two sides overlaid (per case the
// empirical CDFs of TTFT, TPOT and E2EL; for capacity searches the two
// intervals, probes and goodput curves): the model-promotion question. The
// page decides no verdict itself: the statistics are benchserve compare's,
// which `benchserve report` runs for every later run of a workload
// against the first.
//
// Charts are drawn with gonum.org/v1/plot and inlined as SVG; the page
// loads nothing from the network (no scripts, fonts or CDNs) and opens
// from disk. The numbers behind every chart are embedded as JSON in
// <script type="application/json" id="benchserve-data">, which is what
// tests snapshot. Every string from the inputs is escaped by html/template.
//
// Inputs: Run values built with FromPayload (workload payloads),
// FromSweep (prompt-sweep rows) and FromCapacity (results.Capacity), or
// files read by Load (payload JSON, sweep JSON arrays, capacity.json,
// SQLite files written by benchserve or the reference, journals).
// Main implements the `benchserve report` command line.
package report
