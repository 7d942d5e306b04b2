package stats

import (
	"math"
	"strconv"
)

// FormatLoad prints a load (req/s or streams) as the capacity lines give
// it: up to 3 decimals, trailing zeros dropped; one of a million or more
// in exponent form ("1e+300", not 301 digits).
func FormatLoad(v float64) string {
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}
