package loadgen

import (
	"context"
	"fmt"
	"sync"

	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// ErrorStopMin is the fewest completed requests an error-rate stop
// judges: with fewer, even every request failing does not lie beyond a
// limit of a few percent with confidence.
const ErrorStopMin = 10

// ErrorRateOver reports why failed of completed requests exceed limit
// (a fraction in [0, 1]) with confidence, "" when they do not: the exact
// binomial interval (stats.ProportionInterval at
// results.DefaultConfidence) lies wholly above limit, and at least
// ErrorStopMin requests completed. A first error is never enough: 1 of
// 10 is 0.3%–44.5%.
func ErrorRateOver(failed, completed int, limit float64) string {
	if completed < ErrorStopMin || failed == 0 {
		return ""
	}
	low, high := stats.ProportionInterval(failed, completed, results.DefaultConfidence)
	if !(low > limit) {
		return ""
	}
	return fmt.Sprintf("%d of %d requests failed (error rate %.1f%%, 95%% CI %.1f%%–%.1f%%), over the limit %g with confidence",
		failed, completed, 100*float64(failed)/float64(completed), 100*low, 100*high, limit)
}

// ErrorStop ends a run once its error rate is over a limit with
// confidence (ErrorRateOver on the requests completed so far): Wrap
// counts every completion of the Func it wraps and calls the run's
// cancel at the first that tips it. Requests cut by that cancel (kind
// canceled or interrupted) are not counted. Safe for concurrent use.
type ErrorStop struct {
	limit  float64
	cancel context.CancelFunc

	mu                sync.Mutex
	completed, failed int
	reason            string
}

// NewErrorStop watches for an error rate over limit (in [0, 1]) and
// calls cancel, which must end the run's context, when it is reached.
func NewErrorStop(limit float64, cancel context.CancelFunc) *ErrorStop {
	return &ErrorStop{limit: limit, cancel: cancel}
}

// Wrap returns fn counting its completions.
func (e *ErrorStop) Wrap(fn Func) Func {
	return func(ctx context.Context, i int) Sample {
		s := fn(ctx, i)
		kind := s.Kind
		if kind == "" && s.Err != nil {
			kind = Classify(s.Err)
		}
		if kind == results.KindCanceled || kind == results.KindInterrupted {
			return s
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.reason != "" {
			return s
		}
		e.completed++
		if !s.OK() {
			e.failed++
		}
		if why := ErrorRateOver(e.failed, e.completed, e.limit); why != "" {
			e.reason = why
			e.cancel()
		}
		return s
	}
}

// Reason is why the run was stopped ("" when it was not).
func (e *ErrorStop) Reason() string {
	if e == nil {
		return ""
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reason
}
