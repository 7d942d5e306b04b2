package py

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Expected strings were produced by CPython 3.11: repr(v), format(v, "g")
// and round(v, 1).
// Variables, so that 0.1+0.2 is computed in float64 and not as an exact
// Go constant.
var pointOne, pointTwo = 0.1, 0.2

func TestFloatReprMatchesPython(t *testing.T) {
	cases := []struct {
		v       float64
		repr, g string
		round1  float64
	}{
		{3.0, "3.0", "3", 3.0},
		{12.5, "12.5", "12.5", 12.5},
		{0.1, "0.1", "0.1", 0.1},
		{1.0 / 3, "0.3333333333333333", "0.333333", 0.3},
		{1e16, "1e+16", "1e+16", 1e16},
		{1e15, "1000000000000000.0", "1e+15", 1e15},
		{123456789012345678.0, "1.2345678901234568e+17", "1.23457e+17", 123456789012345678.0},
		{0.0001, "0.0001", "0.0001", 0},
		{0.00001, "1e-05", "1e-05", 0},
		{1.5e-7, "1.5e-07", "1.5e-07", 0},
		{math.Copysign(0, -1), "-0.0", "-0", 0},
		{-2.5, "-2.5", "-2.5", -2.5},
		{1e22, "1e+22", "1e+22", 1e22},
		{123.456, "123.456", "123.456", 123.5},
		{3e-4, "0.0003", "0.0003", 0},
		{100.0, "100.0", "100", 100},
		{5e-324, "5e-324", "4.94066e-324", 0},
		{math.MaxFloat64, "1.7976931348623157e+308", "1.79769e+308", math.MaxFloat64},
		{pointOne + pointTwo, "0.30000000000000004", "0.3", 0.3},
		{9999999999999998.0, "9999999999999998.0", "1e+16", 9999999999999998.0},
		{math.NaN(), "nan", "nan", math.NaN()},
		{math.Inf(1), "inf", "inf", math.Inf(1)},
		{math.Inf(-1), "-inf", "-inf", math.Inf(-1)},
	}
	for _, c := range cases {
		assert.Equalf(t, c.repr, FloatRepr(c.v), "FloatRepr(%v) must equal Python repr", c.v)
		assert.Equalf(t, c.g, FormatG(c.v), "FormatG(%v) must equal Python format(v, 'g')", c.v)
		if math.IsNaN(c.round1) {
			assert.Truef(t, math.IsNaN(Round(c.v, 1)), "Round(NaN) stays NaN")
		} else {
			assert.Equalf(t, c.round1, Round(c.v, 1), "Round(%v, 1) must equal Python round(v, 1)", c.v)
		}
	}
}

func TestRoundTiesFollowExactBinaryValue(t *testing.T) {
	// CPython: round(0.25, 1) == 0.2, round(0.35, 1) == 0.3,
	// round(2/3, 4) == 0.6667, round(0.00005, 4) == 0.0001.
	assert.Equal(t, 0.2, Round(0.25, 1), "exact tie rounds half to even")
	assert.Equal(t, 0.3, Round(0.35, 1), "0.35 is below the tie in binary")
	assert.Equal(t, 0.6667, Round(2.0/3, 4), "failure_rate rounding to 4 places")
	assert.Equal(t, 0.0001, Round(0.00005, 4), "0.00005 is above the tie in binary")
}
