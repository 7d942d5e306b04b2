package datasets

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Check reports a parameter of o that is not one of known, naming it and
// the generator: a misspelt parameter must not fall back to a default
// silently.
func (o Options) Check(known ...string) error {
	var bad []string
	for k := range o.Params {
		if !slices.Contains(known, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("datasets: %s: unknown parameter %q (want one of %v)", o.Name, bad[0], known)
}

// CheckNoPath refuses a path for a generator that makes its prompts and
// reads no file (random, prefix_repetition, sessions): a path given there
// would be read by nothing, most likely a dataset meant for another name.
func (o Options) CheckNoPath() error {
	if o.Path == "" {
		return nil
	}
	return fmt.Errorf("datasets: %s makes its prompts and reads no file: drop its path (--dataset-path) %q, or name the dataset it is (sharegpt, jsonl, mooncake, azure)", o.Name, o.Path)
}

// Int returns parameter key as an int, def when it is absent. A value
// that is not a whole number (JSON numbers decode as float64) is an error
// naming the generator and the parameter.
func (o Options) Int(key string, def int) (int, error) {
	v, ok := o.Params[key]
	if !ok || v == nil {
		return def, nil
	}
	v = number(v)
	switch n := v.(type) {
	case int:
		return n, nil
	case int64:
		return int(n), nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int(n), nil
		}
	}
	return 0, fmt.Errorf("datasets: %s: %s: want an integer, got %v", o.Name, key, v)
}

// Float returns parameter key as a float64, def when it is absent.
func (o Options) Float(key string, def float64) (float64, error) {
	v, ok := o.Params[key]
	if !ok || v == nil {
		return def, nil
	}
	v = number(v)
	switch n := v.(type) {
	case float64:
		if !math.IsNaN(n) && !math.IsInf(n, 0) {
			return n, nil
		}
	case int:
		return float64(n), nil
	case int64:
		return float64(n), nil
	}
	return 0, fmt.Errorf("datasets: %s: %s: want a finite number, got %v", o.Name, key, v)
}

// Bool returns parameter key as a bool, def when it is absent.
func (o Options) Bool(key string, def bool) (bool, error) {
	v, ok := o.Params[key]
	if !ok || v == nil {
		return def, nil
	}
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return false, fmt.Errorf("datasets: %s: %s: want true or false, got %v", o.Name, key, v)
}

// String returns parameter key as a string, def when it is absent.
func (o Options) String(key, def string) (string, error) {
	v, ok := o.Params[key]
	if !ok || v == nil {
		return def, nil
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("datasets: %s: %s: want a string, got %v", o.Name, key, v)
}

// number turns a json.Number (a workload file's numbers decode so) into
// an int64 or float64; other values are returned as they are.
func number(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if i, err := n.Int64(); err == nil {
		return i
	}
	if f, err := n.Float64(); err == nil {
		return f
	}
	return v
}
