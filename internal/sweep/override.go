package sweep

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// Override sets one result field on every sweep row (reference:
// --override-field key=value, applied with setattr). Field is a column name
// of resultio.ResultColumns (the SweepResult JSON name); Value is its text,
// converted to the field's type when applied.
type Override struct {
	Field string
	Value string
}

// ErrUnknownField is returned (wrapped) for an override naming no
// SweepResult field. The reference skips such names silently
// (hasattr check); a typo must not pass unnoticed here.
var ErrUnknownField = errors.New("unknown result field")

// ParseOverride parses "key=value" (split at the first "="). Entries
// without "=" or with an empty key are an error; the reference drops them
// silently.
func ParseOverride(kv string) (Override, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return Override{}, fmt.Errorf("sweep: override %q: want key=value", kv)
	}
	return Override{Field: k, Value: v}, nil
}

// ApplyOverrides sets each override's field on r, in order, by JSON field
// name. Values convert to the field's type: strings as is; integers and
// floats by strconv (Python int()/float() spellings such as "1e3" for
// floats); booleans by strconv.ParseBool (true/false/1/0/t/f, any case)
// or the Python spellings True/False; enable_thinking (nullable) also
// accepts "none"/"null"/"" for null. Unlike the reference, which stores
// the raw string whatever the field's type, a value that does not convert
// is an error, as is an unknown field name (ErrUnknownField). On error r
// may be partly updated.
func ApplyOverrides(r *results.SweepResult, overrides []Override) error {
	v := reflect.ValueOf(r).Elem()
	t := v.Type()
	var errs []error
	for _, o := range overrides {
		idx := fieldIndex(t, o.Field)
		if idx < 0 {
			errs = append(errs, fmt.Errorf("sweep: override %s=%s: %w %q (known: %s)", o.Field, o.Value, ErrUnknownField, o.Field, strings.Join(resultio.ResultColumns, ", ")))
			continue
		}
		if err := setField(v.Field(idx), o.Value); err != nil {
			errs = append(errs, fmt.Errorf("sweep: override %s=%s: %w", o.Field, o.Value, err))
		}
	}
	return errors.Join(errs...)
}

// CheckOverrides reports every override that ApplyOverrides would reject,
// without a result at hand (for validating input before a run).
func CheckOverrides(overrides []Override) error {
	r := results.NewSweepResult()
	return ApplyOverrides(&r, overrides)
}

func fieldIndex(t reflect.Type, name string) int {
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == name {
			return i
		}
	}
	return -1
}

func setField(f reflect.Value, s string) error {
	if f.Kind() == reflect.Pointer {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "", "none", "null":
			f.Set(reflect.Zero(f.Type()))
			return nil
		}
		p := reflect.New(f.Type().Elem())
		if err := setField(p.Elem(), s); err != nil {
			return err
		}
		f.Set(p)
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(strings.TrimSpace(strings.ReplaceAll(s, "_", "")), 10, 64)
		if err != nil {
			return fmt.Errorf("want an integer, got %q", s)
		}
		f.SetInt(n)
	case reflect.Float64, reflect.Float32:
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("want a number, got %q", s)
		}
		f.SetFloat(x)
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("want true or false, got %q", s)
		}
		f.SetBool(b)
	default:
		return fmt.Errorf("field of type %s cannot be overridden", f.Type())
	}
	return nil
}
