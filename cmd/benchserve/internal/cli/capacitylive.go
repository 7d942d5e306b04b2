package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/benchserve/benchserve/internal/capacity"
)

// capacityLive is a capacity search's output: a line at each probe's
// start and end, and on a terminal a live line, redrawn every second,
// with the running probe's progress and the search's elapsed time (a
// probe near the crossing runs for minutes: without it the terminal
// would say nothing all that time).
type capacityLive struct {
	mu    sync.Mutex
	log   io.Writer // the lines
	ctl   io.Writer // the live line's terminal (nil: no live line)
	began time.Time
	cur   *capacity.Progress
	drawn bool
	stop  chan struct{}
	done  chan struct{}
}

// newCapacityLive writes lines to log and, when ctl is not nil, draws the
// live line there until close.
func newCapacityLive(log, ctl io.Writer) *capacityLive {
	l := &capacityLive{log: log, ctl: ctl, began: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	if ctl == nil {
		close(l.done)
		return l
	}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-tick.C:
				l.draw()
			}
		}
	}()
	return l
}

// line writes one line, the live line cleared first.
func (l *capacityLive) line(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	fmt.Fprintf(l.log, format+"\n", args...)
}

// update keeps the running probe's progress for the next draw.
func (l *capacityLive) update(p capacity.Progress) {
	l.mu.Lock()
	l.cur = &p
	l.mu.Unlock()
}

// probeDone forgets the finished probe's progress.
func (l *capacityLive) probeDone() {
	l.mu.Lock()
	l.cur = nil
	l.mu.Unlock()
}

func (l *capacityLive) draw() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil {
		return
	}
	fmt.Fprintf(l.ctl, "\r\033[K  %s; search %s", l.cur, time.Since(l.began).Round(time.Second))
	l.drawn = true
}

func (l *capacityLive) clearLocked() {
	if l.drawn {
		fmt.Fprint(l.ctl, "\r\033[K")
		l.drawn = false
	}
}

// close stops the live line and clears it.
func (l *capacityLive) close() {
	if l.ctl != nil {
		close(l.stop)
	}
	<-l.done
	l.mu.Lock()
	l.clearLocked()
	l.mu.Unlock()
}
