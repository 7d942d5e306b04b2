package resultio

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// Expected strings were produced by CPython 3.11: repr(v), format(v, "g")
// and round(v, 1).
// Variables, so that 0.1+0.2 is computed in float64 and not as an exact
// Go constant.
var pointOne, pointTwo = 0.1, 0.2

func TestPyFloatMatchesPythonRepr(t *testing.T) {
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
		assert.Equalf(t, c.repr, pyFloat(c.v), "pyFloat(%v) must equal Python repr", c.v)
		assert.Equalf(t, c.g, pyGeneral(c.v), "pyGeneral(%v) must equal Python format(v, 'g')", c.v)
		if math.IsNaN(c.round1) {
			assert.Truef(t, math.IsNaN(pyRound(c.v, 1)), "pyRound(NaN) stays NaN")
		} else {
			assert.Equalf(t, c.round1, pyRound(c.v, 1), "pyRound(%v, 1) must equal Python round(v, 1)", c.v)
		}
	}
}

func TestPyRoundTiesFollowExactBinaryValue(t *testing.T) {
	// CPython: round(0.25, 1) == 0.2, round(0.35, 1) == 0.3,
	// round(2/3, 4) == 0.6667, round(0.00005, 4) == 0.0001.
	assert.Equal(t, 0.2, pyRound(0.25, 1), "exact tie rounds half to even")
	assert.Equal(t, 0.3, pyRound(0.35, 1), "0.35 is below the tie in binary")
	assert.Equal(t, 0.6667, pyRound(2.0/3, 4), "failure_rate rounding to 4 places")
	assert.Equal(t, 0.0001, pyRound(0.00005, 4), "0.00005 is above the tie in binary")
}

func TestPyDumpsMatchesPythonJSON(t *testing.T) {
	// CPython: json.dumps({'b':[1,2.0,'é"\n\u2028😀'],'a':None,'c':{'z':True}}, sort_keys=True)
	got, err := pyDumps(map[string]any{
		"b": []any{1, 2.5, "é\"\n\u2028😀"},
		"a": nil,
		"c": map[string]any{"z": true},
	})
	require.NoError(t, err, "pyDumps of plain JSON values")
	assert.Equal(t, `{"a": null, "b": [1, 2.5, "\u00e9\"\n\u2028\ud83d\ude00"], "c": {"z": true}}`, got,
		"separators, sorted keys and ensure_ascii escapes must match json.dumps")

	got, err = pyDumps([]string{"request error: boom", "café"})
	require.NoError(t, err, "pyDumps of a string list")
	assert.Equal(t, `["request error: boom", "caf\u00e9"]`, got, "quality_issues rendering")

	got, err = pyDumps(map[string]any{"temperature": 0.7, "max_tokens": float64(256), "nan": math.NaN()})
	require.NoError(t, err, "pyDumps with decoded-JSON floats")
	assert.Equal(t, `{"max_tokens": 256, "nan": null, "temperature": 0.7}`, got,
		"integral floats held in interfaces print as ints; NaN prints null")

	got, err = pyDumps([]string(nil))
	require.NoError(t, err, "pyDumps of a nil slice")
	assert.Equal(t, `[]`, got, "nil slices print as [] like the reference's lists")

	got, err = pyDumps("\x01\x7f")
	require.NoError(t, err, "pyDumps of control characters")
	assert.Equal(t, `"\u0001`+"\x7f"+`"`, got, "control characters escaped, DEL kept as Python does")
}

func TestPyJSONStructsAndPointers(t *testing.T) {
	type inner struct {
		F  float64        `json:"f"`
		P  *float64       `json:"p"`
		O  string         `json:"o,omitempty"`
		S  *results.Stats `json:"s"`
		no int
	}
	one := 1.0
	got, err := pyDumps(struct {
		A inner   `json:"a"`
		B []inner `json:"b"`
		C int     `json:"-"`
	}{A: inner{F: 3, P: &one}, B: []inner{{F: math.Inf(1), S: &results.Stats{Mean: 2}}}})
	require.NoError(t, err, "pyDumps of tagged structs")
	assert.Equal(t,
		`{"a": {"f": 3.0, "p": 1.0, "s": {}}, "b": [{"f": null, "p": null, "s": {"mean": 2.0, "stddev": 0.0, "min": 0.0, "max": 0.0, "p50": 0.0, "p95": 0.0, "p99": 0.0}}]}`,
		got, "field order, omitempty, '-', nil *Stats as {}, typed floats as Python floats, Inf as null")

	indented, err := pyJSON(map[string]any{"a": []any{}, "b": map[string]any{}, "c": []int{1}}, jsonOpts{indent: true})
	require.NoError(t, err, "indented pyJSON")
	assert.Equal(t, "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1\n  ]\n}", string(indented),
		"indent=2 layout must match json.dumps(indent=2)")

	_, err = pyDumps(map[string]any{"x": make(chan int)})
	assert.Error(t, err, "values JSON cannot hold are an error")
}
