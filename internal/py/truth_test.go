package py

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Python: bool(v) for the same values (json.loads makes [] a list, {} a
// dict: both false).
func TestTruthyFollowsPythonBool(t *testing.T) {
	var nilPtr *int
	for _, v := range []any{true, 1, -1, 0.5, math.NaN(), math.Inf(-1), "x", " ", "0", "False",
		[]any{nil}, map[string]any{"a": nil}, []int{1}, map[string]int{"a": 1}, struct{}{},
		json.Number("1"), json.Number("-0.5"), json.Number("1e999")} {
		assert.True(t, Truthy(v), "Truthy(%#v)", v)
	}
	for _, v := range []any{nil, false, 0, 0.0, math.Copysign(0, -1), uint(0), float32(0), "",
		[]any{}, map[string]any{}, []int{}, map[string]int{}, nilPtr,
		json.Number("0"), json.Number("-0"), json.Number("0.0"), json.Number("0e5")} {
		assert.False(t, Truthy(v), "Truthy(%#v)", v)
	}
}
