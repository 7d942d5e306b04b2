package py

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// Truthy reports Python's bool(v) for a decoded JSON value or a Go value
// standing for one: None, False, numeric zero (0, 0.0, -0.0), "" and empty
// lists and dicts are false; everything else, NaN included, is true. A
// json.Number is a number (its zero false); one that does not parse, or
// overflows, is true. A nil pointer is None.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return err != nil || f != 0
	case []any:
		return len(x) != 0
	case map[string]any:
		return len(x) != 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() != 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0
	case reflect.Map, reflect.Slice, reflect.Array, reflect.String:
		return rv.Len() != 0
	case reflect.Pointer, reflect.Interface:
		return !rv.IsNil()
	}
	return true
}
