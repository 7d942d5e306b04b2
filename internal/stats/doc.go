// Package stats is the engine's statistics arithmetic over plain
// numbers: the reference's percentile interpolation (Percentile:
// compute_summary_stats), the distribution-free percentile interval with
// its binomial ranks and the autocorrelated effective sample size
// (OrderInterval, BinomialRanks), the rates a run's sending window
// supports (SendRate, WindowRate) and which requests' decode was timed
// (DecodeTimed), and the comparison of two runs' samples (package
// internal/compare): rank tests (MannWhitney, WilcoxonSignedRank), the
// Hodges–Lehmann shift with its interval (HodgesLehmann,
// PairedHodgesLehmann), percentile differences over the effective sample
// size (PercentileDifference), two proportions (Wilson,
// ProportionDifference) and Holm's familywise correction (Holm).
//
// It is a leaf: it imports only the standard library and go-moremath
// (the U distribution benchstat tests with) and names no type
// of the public vocabulary, so package results builds its distributions,
// intervals and SLO outcomes (results.Dist, results.Interval,
// results.SLOResult) on it without a cycle, and every summary, SLO check,
// benchmark metric and report counts the same samples the same way.
package stats
