package bench_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/benchserve/benchserve/load"
	"github.com/benchserve/benchserve/stream"
)

var modes = []string{"inproc", "child"}

// cpuTime is the user and system CPU time of this whole process so far
// (getrusage RUSAGE_SELF): every goroutine, the runtime and the GC; system
// time is the kernel's share (the reads, epoll_wait and futex calls).
func cpuTime(tb testing.TB) (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// raiseFileLimit lifts the soft open-file limit to the hard one, for
// thousands of connections (Go does it at start-up since 1.19; this keeps
// the benchmark right when that changes or the binary runs elsewhere).
func raiseFileLimit(tb testing.TB, need uint64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		tb.Fatalf("getrlimit: %v", err)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	if lim.Cur < need {
		tb.Skipf("open-file limit %d < %d needed", lim.Cur, need)
	}
}

// BenchmarkHotPath streams 1,000 one-token chunks per op at full speed
// (no scripted delays) over loopback and reports the client's cost per
// streamed token: cpu-ns/token (process CPU from getrusage, split in
// cpu-user-ns/token and cpu-sys-ns/token, the kernel's), allocs/token
// and B/token (runtime.MemStats), and tok/s. With fixture=inproc the
// server's work is in every figure; with fixture=child the server is
// another process and the figures are the client's alone (the test
// binary's own loop and the runtime included).
func BenchmarkHotPath(b *testing.B) {
	const tokens = 1000
	for _, mode := range modes {
		b.Run("fixture="+mode, func(b *testing.B) {
			srv := startServer(b, mode)
			defer srv.stop()
			c, tr, _ := newClient(srv.URL, 1)
			defer tr.CloseIdleConnections()
			req := shape{Tokens: tokens}.request()
			ctx := context.Background()
			if _, err := c.ChatStream(ctx, req); err != nil { // warm the connection
				b.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			user0, sys0 := cpuTime(b)
			streamed := 0
			for b.Loop() {
				res, err := c.ChatStream(ctx, req)
				if err != nil || res.TokenChunks != tokens {
					b.Fatalf("stream: %v (%d token chunks, want %d)", err, res.TokenChunks, tokens)
				}
				streamed += res.TokenChunks
			}
			user1, sys1 := cpuTime(b)
			user, sys := user1-user0, sys1-sys0
			runtime.ReadMemStats(&after)
			n := float64(streamed)
			b.ReportMetric(float64((user+sys).Nanoseconds())/n, "cpu-ns/token")
			b.ReportMetric(float64(user.Nanoseconds())/n, "cpu-user-ns/token")
			b.ReportMetric(float64(sys.Nanoseconds())/n, "cpu-sys-ns/token")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/token")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "B/token")
			b.ReportMetric(n/b.Elapsed().Seconds(), "tok/s")
		})
	}
}

// BenchmarkOpenStreams opens 1,000 streams the fixture holds open without
// sending a token (Script.Hang: status and headers, then nothing) and
// reports the heap and goroutine stacks they hold: B/stream is the growth
// of HeapInuse + StackInuse after a GC, divided by the streams (split in
// heap-B/stream and stack-B/stream), and
// goroutines/stream the goroutines each costs (the caller's, plus
// net/http's read and write loops). With fixture=inproc the server's
// handlers are counted too.
func BenchmarkOpenStreams(b *testing.B) {
	const streams = 1000
	raiseFileLimit(b, 3*streams)
	for _, mode := range modes {
		b.Run(fmt.Sprintf("fixture=%s/streams=%d", mode, streams), func(b *testing.B) {
			srv := startServer(b, mode)
			defer srv.stop()
			c, tr, _ := newClient(srv.URL, streams)
			defer tr.CloseIdleConnections()
			req := shape{Hang: true}.request()
			var heap, stack, gor float64
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				g0 := runtime.NumGoroutine()
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{}, streams)
				for range streams {
					go func() {
						_, _ = c.ChatStream(ctx, req)
						done <- struct{}{}
					}()
				}
				g := waitStable(g0 + 2*streams)
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap += float64(int64(after.HeapInuse) - int64(before.HeapInuse))
				stack += float64(int64(after.StackInuse) - int64(before.StackInuse))
				if path := os.Getenv(heapProfileEnv); path != "" {
					writeHeapProfile(b, fmt.Sprintf("%s.%s", path, mode))
				}
				gor += float64(g - g0)
				cancel()
				for range streams {
					<-done
				}
				tr.CloseIdleConnections()
			}
			n := float64(b.N) * streams
			b.ReportMetric((heap+stack)/n, "B/stream")
			b.ReportMetric(heap/n, "heap-B/stream")
			b.ReportMetric(stack/n, "stack-B/stream")
			b.ReportMetric(gor/n, "goroutines/stream")
		})
	}
}

// heapProfileEnv names a file prefix: BenchmarkOpenStreams then writes
// the heap profile taken while the streams are open to <prefix>.<mode>
// (go tool pprof -sample_index=inuse_space <prefix>.child), and the
// goroutines' stacks to <prefix>.<mode>.goroutines.
const heapProfileEnv = "BENCHSERVE_OPEN_STREAMS_HEAPPROFILE"

func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
	g, err := os.Create(path + ".goroutines")
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	if err := pprof.Lookup("goroutine").WriteTo(g, 1); err != nil {
		b.Fatal(err)
	}
}

// waitStable waits until there are at least min goroutines and their
// number has not changed for 200 ms (every stream is then blocked reading
// its body), at most 30 s, and returns the count.
func waitStable(min int) int {
	deadline := time.Now().Add(30 * time.Second)
	last, since := -1, time.Now()
	for time.Now().Before(deadline) {
		g := runtime.NumGoroutine()
		if g != last {
			last, since = g, time.Now()
		} else if g >= min && time.Since(since) >= 200*time.Millisecond {
			return g
		}
		time.Sleep(10 * time.Millisecond)
	}
	return last
}

// ttftLevels are the concurrency levels of BenchmarkTTFTAccuracy.
var ttftLevels = []int{1, 16, 64, 128, 256, 512, 1000}

// BenchmarkTTFTAccuracy runs rounds of N concurrent streams (all sent at
// once, closed loop, connections already open) of 20 tokens with a
// scripted TTFT of 100 ms and 10 ms between tokens, and reports the error
// of the TTFT the client measured: ttft-err-p50/p99/max-ns/op are
// measured − 100 ms over every request of every round (so they include
// the fixture's own lateness: its timer and its writes), plus the measured
// ttft-p99-ns/op, failures and dials (connections opened after the
// warm-up round; 0 when rounds reuse connections).
func BenchmarkTTFTAccuracy(b *testing.B) {
	raiseFileLimit(b, 3*1000+100)
	const scripted = 100 * time.Millisecond
	sh := shape{Tokens: 20, TTFT: scripted, TokenDelay: 10 * time.Millisecond}
	for _, mode := range modes {
		b.Run("fixture="+mode, func(b *testing.B) {
			srv := startServer(b, mode)
			defer srv.stop()
			for _, n := range ttftLevels {
				b.Run(fmt.Sprintf("conc=%d", n), func(b *testing.B) {
					c, tr, dials := newClient(srv.URL, n)
					defer tr.CloseIdleConnections()
					req := sh.request()
					fn := load.StreamFunc(c, func(int) stream.Request { return req })
					round := func() *load.Run {
						run, err := load.RunClosed(context.Background(), fn, load.Closed{Concurrency: n, Requests: n, MaxDuration: time.Minute})
						if err != nil {
							b.Fatal(err)
						}
						return run
					}
					round() // open the connections
					dials0 := dials.Load()
					var errs, ttft []float64
					failures := 0
					for b.Loop() {
						for _, s := range round().Samples {
							if !s.OK() {
								failures++
								continue
							}
							ttft = append(ttft, s.TTFTms)
							errs = append(errs, s.TTFTms-float64(scripted)/float64(time.Millisecond))
						}
					}
					e, t := load.NewDist(errs), load.NewDist(ttft)
					const ns = float64(time.Millisecond)
					b.ReportMetric(e.P50*ns, "ttft-err-p50-ns/op")
					b.ReportMetric(e.P99*ns, "ttft-err-p99-ns/op")
					b.ReportMetric(e.Max*ns, "ttft-err-max-ns/op")
					b.ReportMetric(t.P99*ns, "ttft-p99-ns/op")
					b.ReportMetric(float64(failures), "failures")
					// Connections dialled after the warm-up round: 0 when every
					// round reused the open ones (a dial in a round adds the
					// TCP handshake, or a SYN retransmit, to that TTFT).
					b.ReportMetric(float64(dials.Load()-dials0), "dials")
				})
			}
		})
	}
}
