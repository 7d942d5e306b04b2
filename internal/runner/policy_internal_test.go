package runner

import "testing"

// TestPolicy covers _compute_within_policy_timeout's table: no timeout →
// null; errored → false; else e2e <= timeout (the boundary is within).
func TestPolicy(t *testing.T) {
	ten := 10.0
	for _, tc := range []struct {
		name    string
		timeout *float64
		errored bool
		e2e     float64
		want    *bool
	}{
		{"no timeout", nil, false, 5, nil},
		{"no timeout, errored", nil, true, 5, nil},
		{"under", &ten, false, 9.9, ptr(true)},
		{"exactly at the limit", &ten, false, 10, ptr(true)},
		{"over", &ten, false, 10.1, ptr(false)},
		{"errored under", &ten, true, 1, ptr(false)},
	} {
		got := policy(tc.timeout, tc.errored, tc.e2e)
		if got.TimeoutMS != tc.timeout {
			t.Errorf("%s: timeout_ms %v, want %v", tc.name, got.TimeoutMS, tc.timeout)
		}
		switch {
		case tc.want == nil && got.WithinTimeout != nil:
			t.Errorf("%s: within_timeout %v, want null", tc.name, *got.WithinTimeout)
		case tc.want != nil && (got.WithinTimeout == nil || *got.WithinTimeout != *tc.want):
			t.Errorf("%s: within_timeout %v, want %v", tc.name, got.WithinTimeout, *tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
