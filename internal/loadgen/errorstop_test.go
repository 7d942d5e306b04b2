package loadgen_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// TestErrorRateOver: the stop is judged on the exact interval, not the
// point value: 3 in 100 does not fail a 1% limit (0.6%–8.5%), 5 in 10
// fails 5%, and fewer than ErrorStopMin completions never stop.
func TestErrorRateOver(t *testing.T) {
	assert.Empty(t, loadgen.ErrorRateOver(3, 100, 0.01), "3 of 100: the interval reaches below 1%")
	assert.Empty(t, loadgen.ErrorRateOver(9, 9, 0.05), "9 of 9: too few to judge")
	assert.Empty(t, loadgen.ErrorRateOver(0, 1000, 0), "no failure")
	assert.Equal(t, "5 of 10 requests failed (error rate 50.0%, 95% CI 18.7%–81.3%), over the limit 0.05 with confidence",
		loadgen.ErrorRateOver(5, 10, 0.05))
}

// TestErrorStopCancelsOnce: the stop counts completions, leaves out
// requests it cut itself (canceled, interrupted), and cancels once.
func TestErrorStopCancelsOnce(t *testing.T) {
	cancels := 0
	es := loadgen.NewErrorStop(0.05, func() { cancels++ })
	var next loadgen.Sample
	fn := es.Wrap(func(context.Context, int) loadgen.Sample { return next })
	for i := range 20 {
		next = loadgen.Sample{Err: errors.New("cut"), Kind: results.KindInterrupted}
		fn(context.Background(), i) // never counted
	}
	assert.Empty(t, es.Reason(), "cut requests are not the server's errors")
	for i := range 9 {
		next = loadgen.Sample{Err: errors.New("boom"), Kind: results.KindHTTP5xx}
		fn(context.Background(), i)
	}
	assert.Zero(t, cancels, "9 completions: not yet judged")
	fn(context.Background(), 9)
	assert.Equal(t, 1, cancels, "the 10th failure tips it")
	fn(context.Background(), 10)
	assert.Equal(t, 1, cancels, "cancelled once")
	assert.Contains(t, es.Reason(), "10 of 10 requests failed")
	var none *loadgen.ErrorStop
	assert.Empty(t, none.Reason(), "no limit: no reason")
}
