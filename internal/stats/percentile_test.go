package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPercentile(t *testing.T) {
	sorted := []float64{1, 2, 3, 4}
	assert.Equal(t, 1.0, Percentile(sorted, 0), "p0 is the minimum")
	assert.Equal(t, 4.0, Percentile(sorted, 100), "p100 is the maximum")
	assert.Equal(t, 1.75, Percentile(sorted, 25), "p25 idx 0.75")
	assert.Equal(t, 3.7, Percentile(sorted, 90), "p90 idx 2.7")
	assert.Equal(t, 4.0, Percentile(sorted, 150), "p above 100 clamps to the maximum")
	assert.Equal(t, 1.0, Percentile(sorted, -5), "negative p clamps to the minimum")
	assert.Equal(t, 7.0, Percentile([]float64{7}, 50), "one value")
	assert.True(t, math.IsNaN(Percentile(nil, 50)), "no values gives NaN")
}
