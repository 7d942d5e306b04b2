package stats

import "math"

// DecodeTimed is the one rule for which requests enter the decode-rate
// statistics (TPOT in ms per token, gen_tps in tokens/s): those whose
// decode span was observable, so both rates were measured. A rate the
// stream could not time (one chunk, too few chunks, a burst: null with
// decode_timing in the record, NaN in Go) is left out of every summary,
// SLO, benchmark metric and sweep row and counted as skipped, never
// averaged in as a number.
func DecodeTimed(tpotMS, genTPS float64) bool {
	return !math.IsNaN(tpotMS) && !math.IsNaN(genTPS)
}
