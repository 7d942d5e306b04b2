package resultio

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

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
