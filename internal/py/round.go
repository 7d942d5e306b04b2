package py

import (
	"math"
	"strconv"
)

// Round rounds f to n decimal places as Python's round(f, n) does: on the
// exact binary value of f (0.35 rounds down, it is below the tie in
// binary; an exact tie such as 0.25 rounds half to even). NaN and ±Inf
// are returned as they are.
func Round(f float64, n int) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'f', n, 64), 64)
	if err != nil {
		return f
	}
	return r
}
