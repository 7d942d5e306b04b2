package metrics

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"

	"github.com/benchserve/benchserve/internal/py"
)

// coerceFloat converts a stats value to float64 leniently, porting the
// reference's _coerce_float (Python float(value) with a default):
//   - nil → def;
//   - Go integer and float types, json.Number → their value;
//   - bool → 1 or 0;
//   - strings → parsed after trimming spaces, accepting what Python's
//     float() accepts: decimal and exponent forms, a sign, "inf",
//     "infinity", "nan" (any case), underscores between digits; hex
//     floats are rejected as Python does; out-of-range values become ±Inf;
//   - anything else (maps, slices, unparsable strings) → def.
func coerceFloat(v any, def float64) float64 {
	switch x := v.(type) {
	case nil:
		return def
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case float32:
		return float64(x)
	case int:
		return float64(x)
	case int8:
		return float64(x)
	case int16:
		return float64(x)
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case uint:
		return float64(x)
	case uint8:
		return float64(x)
	case uint16:
		return float64(x)
	case uint32:
		return float64(x)
	case uint64:
		return float64(x)
	case json.Number:
		return parsePyFloat(string(x), def)
	case string:
		return parsePyFloat(x, def)
	}
	return def
}

// coerceInt converts a stats value to an integer leniently, porting the
// reference's _coerce_int (Python int(value) with a default):
//   - nil → def;
//   - Go integer types → their value (uint64 above MaxInt64 → def);
//   - floats (and json.Number) → truncated toward zero; NaN, ±Inf and
//     values outside int64 → def;
//   - bool → 1 or 0;
//   - strings → base-10 integers only after trimming spaces, with a sign
//     and underscores between digits ("3.5" → def, as int("3.5") fails in
//     Python);
//   - anything else → def.
func coerceInt(v any, def int64) int64 {
	switch x := v.(type) {
	case nil:
		return def
	case bool:
		if x {
			return 1
		}
		return 0
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case uint:
		return uintToInt(uint64(x), def)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return uintToInt(x, def)
	case float32:
		return truncFloat(float64(x), def)
	case float64:
		return truncFloat(x, def)
	case json.Number:
		// A JSON number is what Python's json module would decode to an
		// int or a float; int() of either truncates.
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return def
		}
		return truncFloat(f, def)
	case string:
		if n, ok := py.ParseInt(x); ok {
			return n
		}
		return def
	}
	return def
}

func uintToInt(u uint64, def int64) int64 {
	if u > math.MaxInt64 {
		return def
	}
	return int64(u)
}

func truncFloat(f float64, def int64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return def
	}
	t := math.Trunc(f)
	if t < math.MinInt64 || t >= math.MaxInt64 {
		return def
	}
	return int64(t)
}

// parsePyFloat is Python's float(raw) (py.ParseFloat), def where it raises.
func parsePyFloat(raw string, def float64) float64 {
	if f, ok := py.ParseFloat(raw); ok {
		return f
	}
	return def
}

// asMap reports whether v is a map with string keys (the reference's
// isinstance(cache_stats, dict)) and returns it as map[string]any.
func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case nil:
		return nil, false
	case map[string]any:
		return m, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	iter := rv.MapRange()
	for iter.Next() {
		out[iter.Key().String()] = iter.Value().Interface()
	}
	return out, true
}
