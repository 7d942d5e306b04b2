package progress_test

import (
	"os"
	"time"

	"github.com/benchserve/benchserve/internal/progress"
)

func Example() {
	// os.Stdout is not a terminal under go test, so this prints plain lines;
	// a fixed clock makes the times reproducible.
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	calls := 0
	clock := func() time.Time { calls++; return t0.Add(time.Duration(calls-1) * 800 * time.Millisecond) }

	p := progress.New(os.Stdout, 2, progress.WithClock(clock))
	p.Done("greet", true)
	p.Done("explain-tides", false)
	p.Finish()
	// Output:
	// benchserve: 1/2 ok greet (elapsed 800ms, eta 800ms)
	// benchserve: 2/2 FAIL explain-tides (elapsed 1.6s, eta 0ms)
	// benchserve: done 2/2 cases, 1 failed, in 2.4s
}
