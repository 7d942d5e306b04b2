package progress_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/benchserve/benchserve/internal/progress"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeClock advances by step on every reading after the first.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

func newClock(step time.Duration) *fakeClock {
	return &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), step: step}
}

func TestPlainLines(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock(1500 * time.Millisecond)
	p := progress.New(&buf, 3, progress.WithClock(clk.now))
	p.Done("greet", true)
	p.Done("explain-tides", false)
	p.Done("multi-turn", true)
	p.Finish()
	want := "benchserve: 1/3 ok greet (elapsed 1.5s, eta 3.0s)\n" +
		"benchserve: 2/3 FAIL explain-tides (elapsed 3.0s, eta 1.5s)\n" +
		"benchserve: 3/3 ok multi-turn (elapsed 4.5s, eta 0ms)\n" +
		"benchserve: done 3/3 cases, 1 failed, in 6.0s\n"
	assert.Equal(t, want, buf.String(), "a bytes.Buffer is not a terminal: one plain line per case, then the tally")
	assert.NotContains(t, buf.String(), "\r", "plain mode must never emit carriage returns into CI logs")
}

func TestLiveLine(t *testing.T) {
	var buf bytes.Buffer
	clk := newClock(2 * time.Second)
	p := progress.New(&buf, 4, progress.WithClock(clk.now), progress.WithTerminal(true), progress.WithWidth(200))
	p.Done("a", true)
	p.Done("b", false)
	p.Finish()
	out := buf.String()
	frames := strings.Split(out, "\r\x1b[K")
	assert.Equal(t, []string{
		"",
		"benchserve [=====>              ] 1/4  25%  elapsed 2.0s  eta 6.0s  ok a",
		"benchserve [==========>         ] 2/4  50%  elapsed 4.0s  eta 4.0s  FAIL b",
		"benchserve: done 2/4 cases, 1 failed, in 6.0s\n",
	}, frames, "live mode redraws one line with \\r and clears it before the tally")
	assert.Equal(t, 1, strings.Count(out, "\n"), "live mode prints a newline only at Finish")
}

func TestLiveLineCutToWidth(t *testing.T) {
	var buf bytes.Buffer
	p := progress.New(&buf, 2, progress.WithClock(newClock(time.Second).now), progress.WithTerminal(true), progress.WithWidth(30))
	p.Done(strings.Repeat("very-long-case-name-", 5), true)
	line := strings.TrimPrefix(buf.String(), "\r\x1b[K")
	assert.Equal(t, "benchserve [==========>      ", line, "the live line is cut to width-1 columns so the terminal never wraps it")
}

func TestUnknownTotal(t *testing.T) {
	var buf bytes.Buffer
	p := progress.New(&buf, 0, progress.WithClock(newClock(time.Second).now), progress.WithPrefix("bench"))
	p.Done("x", true)
	p.Finish()
	assert.Equal(t, "bench: 1 ok x (elapsed 1.0s)\nbench: done 1 cases, 0 failed, in 2.0s\n", buf.String(),
		"with total 0 there is no denominator and no ETA")
}

func TestFinishOnceAndDoneAfterFinishIgnored(t *testing.T) {
	var buf bytes.Buffer
	p := progress.New(&buf, 1, progress.WithClock(newClock(time.Minute+5*time.Second).now))
	p.Finish()
	p.Finish()
	p.Done("late", true)
	assert.Equal(t, "benchserve: done 0/1 cases, 0 failed, in 1m05s\n", buf.String(), "only the first Finish prints; Done after Finish is ignored")
}

func TestNilReporter(t *testing.T) {
	var p *progress.Reporter
	assert.NotPanics(t, func() { p.Done("x", true); p.Finish() }, "a nil *Reporter is a no-op")
}

func TestConcurrentDone(t *testing.T) {
	var buf bytes.Buffer
	const n = 50
	p := progress.New(&buf, n, progress.WithClock(newClock(time.Millisecond).now))
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { p.Done(fmt.Sprintf("case-%d", i), i%5 != 0) })
	}
	wg.Wait()
	p.Finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	assert.Len(t, lines, n+1, "one whole line per case plus the tally, none interleaved")
	assert.Equal(t, fmt.Sprintf("benchserve: done %d/%d cases, 10 failed, in 51ms", n, n), lines[n], "tally counts every concurrent Done")
}
