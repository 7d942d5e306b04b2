package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Axis labels over a narrow range are told apart ("1.19 1.2 1.21", not
// "1.2 1.2 1.2"), and ordinary ones keep their trimmed form.
func TestTickLabelsAreDistinct(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi float64
	}{
		{"narrow TPOT range", 1.19, 1.21},
		{"very narrow", 1.2001, 1.2003},
		{"ordinary", 0, 125},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var labels []string
			seen := map[string]bool{}
			for _, tk := range (trimTicks{}).Ticks(tc.lo, tc.hi) {
				if tk.Label == "" {
					continue
				}
				assert.False(t, seen[tk.Label], "label %q appears once (%v)", tk.Label, labels)
				seen[tk.Label] = true
				labels = append(labels, tk.Label)
			}
			assert.GreaterOrEqual(t, len(labels), 2, "labelled ticks: %v", labels)
		})
	}
	var labels []string
	for _, tk := range (trimTicks{}).Ticks(0, 125) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"0", "40", "80", "120"}, labels, "ordinary labels keep their trimmed form")
}
