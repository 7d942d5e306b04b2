// Package stats is the one statistics definition of benchserve: the
// reference's summary statistics (Compute, Percentile: compute_summary_stats
// with its linear interpolation), distributions of a run's metrics (Dist,
// Stats), the kinds a failed request is counted under (ErrorKind) and
// run-level SLO thresholds ("ttft_p95_ms <= 500": Threshold, Evaluate).
//
// It is a leaf: it imports only the standard library, so the workload
// loader can validate thresholds without linking the load generator, and
// the payload summary, the SLO checks, the benchmarks' ReportMetric, the
// CLI's lines and the report all count the same samples the same way.
package stats
