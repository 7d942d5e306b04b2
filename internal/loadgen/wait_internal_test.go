package loadgen

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// waitUntil never returns before the due instant, returns at once for one
// already past, and gives up when its context ends, leaving the timer
// usable.
func TestWaitUntil(t *testing.T) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for _, ahead := range []time.Duration{0, 500 * time.Microsecond, 5 * time.Millisecond} {
		due := time.Now().Add(ahead)
		assert.True(t, waitUntil(context.Background(), timer, due), "due in %v", ahead)
		assert.False(t, time.Now().Before(due), "returned before the instant due in %v", ahead)
	}
	assert.True(t, waitUntil(context.Background(), timer, time.Now().Add(-time.Second)), "an instant already past")

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	assert.False(t, waitUntil(ctx, timer, time.Now().Add(time.Hour)), "the context ended first")
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	assert.False(t, waitUntil(ctx2, timer, time.Now().Add(time.Millisecond)), "ended while yielding the last stretch")
	due := time.Now().Add(3 * time.Millisecond)
	assert.True(t, waitUntil(context.Background(), timer, due), "the timer works after a cancelled wait")
	assert.False(t, time.Now().Before(due))
}
