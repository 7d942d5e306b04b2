package cli

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/results"
)

// A search's exit status: 0 with a confirmed lower end, 1 when no load
// passed with confidence — a fit's estimate with an interval open below
// (a newcomer's --fit run exited 0 with every probe inconclusive) — or
// when the lower end is below --floor.
func TestCapacityExitStatus(t *testing.T) {
	exit := func(res results.Capacity, floor float64) (int, string) {
		var out, errb strings.Builder
		code := capacityExit(&env{stdout: &out, stderr: &errb, getenv: os.Getenv}, res, nil, floor)
		return code, errb.String()
	}
	found := results.Capacity{Capacity: 10.2, Measured: true, Status: "found", Interval: results.Interval{Low: 9.5, High: 11, Confidence: 0.95}}
	code, msg := exit(found, 0)
	assert.Equal(t, ExitOK, code, msg)
	assert.Empty(t, msg, "a found search says nothing more")

	open := results.Capacity{Capacity: 36.849, Measured: true, Status: "budget_spent", Interval: results.Interval{Low: math.NaN(), High: 40.6, Confidence: 0.95}}
	code, msg = exit(open, 0)
	assert.Equal(t, ExitFailed, code)
	assert.Contains(t, msg, "no load passed with confidence (the interval's lower end is open): the estimate 36.849 is not confirmed")

	code, msg = exit(found, 12)
	assert.Equal(t, ExitFailed, code, "a lower end below --floor fails")
	assert.NotEmpty(t, msg)
	code, _ = exit(results.Capacity{Status: "found"}, 0)
	assert.Equal(t, ExitFailed, code, "nothing measured")
}
