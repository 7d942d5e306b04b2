package bench_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
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

// ttftLevels are the concurrency levels of BenchmarkTTFTAccuracy, unless
// ttftLevelsEnv names others.
var ttftLevels = []int{1, 16, 64, 128, 256, 512, 1000}

// ttftLevelsEnv replaces ttftLevels with a comma-separated list of stream
// counts (BENCHSERVE_TTFT_LEVELS=16,32,48), to look for the client's
// ceiling between the default levels.
const ttftLevelsEnv = "BENCHSERVE_TTFT_LEVELS"

// levels returns ttftLevels or the ones ttftLevelsEnv names.
func levels(b *testing.B) []int {
	counts := envNumbers(b, ttftLevelsEnv, "stream counts >= 1", func(n float64) bool { return n >= 1 && n == math.Trunc(n) })
	if counts == nil {
		return ttftLevels
	}
	out := make([]int, len(counts))
	for i, n := range counts {
		out[i] = int(n)
	}
	return out
}

// envNumbers parses the comma-separated numbers of the environment
// variable name, each one ok says is valid (want describes them in the
// error that fails b); nil when name is unset.
func envNumbers(b *testing.B, name, want string, ok func(float64) bool) []float64 {
	v := os.Getenv(name)
	if v == "" {
		return nil
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !ok(n) {
			b.Fatalf("%s=%q: want %s separated by commas", name, v, want)
		}
		out = append(out, n)
	}
	return out
}

// ttftScripted is the TTFT the fixture scripts in BenchmarkTTFTAccuracy
// and BenchmarkTTFTFloor (then 10 ms between tokens, 20 tokens).
const ttftScripted = 100 * time.Millisecond

var ttftShape = shape{Tokens: 20, TTFT: ttftScripted, TokenDelay: 10 * time.Millisecond}

// BenchmarkTTFTAccuracy runs rounds of N concurrent streams (all sent at
// once, closed loop, connections already open) of 20 tokens with a
// scripted TTFT of 100 ms and 10 ms between tokens, and reports the error
// of the TTFT the client measured: ttft-err-p50/p99/max/mean-ns/op are
// measured − 100 ms over every request of every round (so they include
// the fixture's own lateness: its timer and its writes), plus the measured
// ttft-p99-ns/op, failures and dials (connections opened after the
// warm-up round; 0 when rounds reuse connections).
//
// Three figures split the error. send-lag-p50/p99-ns/op is the time from
// the start of the request (the instant TTFT counts from) until net/http
// had written it (httptrace WroteRequest): client-side delay before the
// server can even start its clock. intake-lag-p50/p99/mean-ns/op is the
// time from the start of the request until the fixture's responder ran
// (wall clocks of the two processes, one machine): the send lag plus the
// kernel and the server's accept, read and parsing; the scripted 100 ms
// only start there. post-intake-err-p50/p99-ns/op is, per request,
// measured TTFT − intake lag − 100 ms: the error once the server's clock
// started (its timer and write, the response's way back, and the client
// reading it). cpu-ns/token and cpu-cores are this process's CPU
// (getrusage) per token chunk streamed and per second of the rounds: how
// much of the 2 cores the client itself took. server-ttft-err-mean-ns/op is the
// fixture's own TTFT (from its handler starting to the first token
// written and flushed, from its vllm_mlx_inference_ttft_seconds sum and
// count) minus 100 ms: the server's lateness, mean only (the histogram's
// buckets are too coarse for percentiles). BenchmarkTTFTFloor gives the
// same rounds with a minimal client for the percentiles.
func BenchmarkTTFTAccuracy(b *testing.B) {
	raiseFileLimit(b, 3*1000+100)
	for _, mode := range modes {
		b.Run("fixture="+mode, func(b *testing.B) {
			srv := startServer(b, mode)
			defer srv.stop()
			for _, n := range levels(b) {
				b.Run(fmt.Sprintf("conc=%d", n), func(b *testing.B) {
					c, tr, dials := newClient(srv.URL, n)
					defer tr.CloseIdleConnections()
					var mu sync.Mutex
					var sendLag []float64
					ttftByID := map[string]float64{}
					fn := func(ctx context.Context, _ int) loadgen.Sample {
						var wrote atomic.Int64
						ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
							WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(time.Now().UnixNano()) },
						})
						sh := ttftShape
						sh.Sent = time.Now()
						res, err := c.ChatStream(ctx, sh.request())
						if err == nil {
							mu.Lock()
							if w := wrote.Load(); w != 0 {
								sendLag = append(sendLag, float64(w-res.StartedAt.UnixNano())/float64(time.Millisecond))
							}
							ttftByID[res.RequestID] = res.TTFTms
							mu.Unlock()
						}
						return loadgen.SampleOf(res, err)
					}
					round := func() *loadgen.Run {
						run, err := loadgen.RunClosed(context.Background(), fn, loadgen.Closed{Concurrency: n, Requests: n, MaxDuration: time.Minute})
						if err != nil {
							b.Fatal(err)
						}
						return run
					}
					round() // open the connections
					dials0 := dials.Load()
					sum0, count0 := serverTTFT(b, srv.URL)
					if _, err := srv.intake(); err != nil { // drop the warm-up round's
						b.Fatal(err)
					}
					mu.Lock()
					sendLag = nil
					clear(ttftByID)
					mu.Unlock()
					var errs, ttft []float64
					failures, chunks := 0, 0
					user0, sys0 := cpuTime(b)
					for b.Loop() {
						for _, s := range round().Samples {
							if !s.OK() {
								failures++
								continue
							}
							chunks += len(s.ITLms) + 1
							ttft = append(ttft, s.TTFTms)
							errs = append(errs, s.TTFTms-float64(ttftScripted)/float64(time.Millisecond))
						}
					}
					user1, sys1 := cpuTime(b)
					cpu := (user1 - user0) + (sys1 - sys0)
					sum1, count1 := serverTTFT(b, srv.URL)
					in, err := srv.intake()
					if err != nil {
						b.Fatal(err)
					}
					var inLags, after []float64
					for id, lag := range in {
						inLags = append(inLags, lag)
						if m, ok := ttftByID[id]; ok {
							after = append(after, m-lag-float64(ttftScripted)/float64(time.Millisecond))
						}
					}
					e, t, sl, il, al := results.NewDist(errs), results.NewDist(ttft), results.NewDist(sendLag), results.NewDist(inLags), results.NewDist(after)
					const ns = float64(time.Millisecond)
					b.ReportMetric(e.P50*ns, "ttft-err-p50-ns/op")
					b.ReportMetric(e.P99*ns, "ttft-err-p99-ns/op")
					b.ReportMetric(e.Max*ns, "ttft-err-max-ns/op")
					b.ReportMetric(e.Mean*ns, "ttft-err-mean-ns/op")
					b.ReportMetric(t.P99*ns, "ttft-p99-ns/op")
					b.ReportMetric(sl.P50*ns, "send-lag-p50-ns/op")
					b.ReportMetric(sl.P99*ns, "send-lag-p99-ns/op")
					b.ReportMetric(il.P50*ns, "intake-lag-p50-ns/op")
					b.ReportMetric(il.P99*ns, "intake-lag-p99-ns/op")
					b.ReportMetric(il.Mean*ns, "intake-lag-mean-ns/op")
					b.ReportMetric(al.P50*ns, "post-intake-err-p50-ns/op")
					b.ReportMetric(al.P99*ns, "post-intake-err-p99-ns/op")
					if count1 > count0 {
						mean := (sum1 - sum0) / float64(count1-count0) * float64(time.Second)
						b.ReportMetric(mean-float64(ttftScripted), "server-ttft-err-mean-ns/op")
					}
					b.ReportMetric(float64(failures), "failures")
					if chunks > 0 {
						b.ReportMetric(float64(cpu.Nanoseconds())/float64(chunks), "cpu-ns/token")
						b.ReportMetric(cpu.Seconds()/b.Elapsed().Seconds(), "cpu-cores")
						b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "tok/s")
					}
					// Connections dialled after the warm-up round: 0 when every
					// round reused the open ones (a dial in a round adds the
					// TCP handshake, or a SYN retransmit, to that TTFT).
					b.ReportMetric(float64(dials.Load()-dials0), "dials")
				})
			}
		})
	}
}

// serverTTFT returns the fixture's TTFT histogram sum (seconds) and count
// for streamed requests, from its /metrics.
func serverTTFT(b *testing.B, url string) (sum float64, count uint64) {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		b.Fatalf("fixture metrics: %v", err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		b.Fatalf("fixture metrics: %v", err)
	}
	fam := fams["vllm_mlx_inference_ttft_seconds"]
	if fam == nil {
		return 0, 0
	}
	for _, m := range fam.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "stream" && l.GetValue() == "true" {
				sum += m.GetHistogram().GetSampleSum()
				count += m.GetHistogram().GetSampleCount()
			}
		}
	}
	return sum, count
}

// BenchmarkTTFTFloor runs BenchmarkTTFTAccuracy's rounds with the least a
// Go client can do instead of stream.Client: one pre-built HTTP/1.1
// request written on an open connection, then a blocking read of lines
// until the first "data:" line (timestamped there), then the rest of the
// body. No net/http, no SSE splitting, no JSON. Its error
// (ttft-err-*-ns/op, measured − 100 ms) is what the fixture, the kernel
// and the Go scheduler leave on this machine; BenchmarkTTFTAccuracy minus
// this is the cost of net/http and the stream client.
func BenchmarkTTFTFloor(b *testing.B) {
	raiseFileLimit(b, 3*1000+100)
	body, err := stream.BuildBody(ttftShape.request())
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range modes {
		b.Run("fixture="+mode, func(b *testing.B) {
			srv := startServer(b, mode)
			defer srv.stop()
			host := strings.TrimPrefix(srv.URL, "http://")
			head := fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: %d\r\n\r\n", host, len(body))
			msg := append([]byte(head), body...)
			for _, n := range ttftLevels {
				b.Run(fmt.Sprintf("conc=%d", n), func(b *testing.B) {
					conns := make([]*rawConn, n)
					for i := range conns {
						c, err := net.Dial("tcp", host)
						if err != nil {
							b.Fatal(err)
						}
						conns[i] = &rawConn{c: c, r: bufio.NewReader(c)}
						defer c.Close()
					}
					round := func() ([]time.Duration, error) {
						out := make([]time.Duration, n)
						errc := make(chan error, n)
						var wg sync.WaitGroup
						for i, rc := range conns {
							wg.Go(func() {
								d, err := rc.ttft(msg)
								out[i] = d
								errc <- err
							})
						}
						wg.Wait()
						close(errc)
						for err := range errc {
							if err != nil {
								return nil, err
							}
						}
						return out, nil
					}
					if _, err := round(); err != nil { // warm up
						b.Fatal(err)
					}
					var errs []float64
					for b.Loop() {
						ds, err := round()
						if err != nil {
							b.Fatal(err)
						}
						for _, d := range ds {
							errs = append(errs, float64(d-ttftScripted)/float64(time.Millisecond))
						}
					}
					e := results.NewDist(errs)
					const ns = float64(time.Millisecond)
					b.ReportMetric(e.P50*ns, "ttft-err-p50-ns/op")
					b.ReportMetric(e.P99*ns, "ttft-err-p99-ns/op")
					b.ReportMetric(e.Max*ns, "ttft-err-max-ns/op")
					b.ReportMetric(e.Mean*ns, "ttft-err-mean-ns/op")
				})
			}
		})
	}
}

// rawConn is one keep-alive connection of BenchmarkTTFTFloor.
type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

// ttft sends msg and returns the time until the first "data:" line, then
// reads the rest of the chunked answer (to its last-chunk line "0").
func (rc *rawConn) ttft(msg []byte) (time.Duration, error) {
	start := time.Now()
	if _, err := rc.c.Write(msg); err != nil {
		return 0, err
	}
	var first time.Duration
	inBody := false
	for {
		line, err := rc.r.ReadSlice('\n')
		if err != nil {
			return 0, fmt.Errorf("raw client: %w", err)
		}
		switch {
		case !inBody:
			inBody = len(line) == 2 && line[0] == '\r' // end of the head
		case first == 0 && bytes.HasPrefix(line, []byte("data:")):
			first = time.Since(start)
		case string(line) == "0\r\n":
			if _, err := rc.r.ReadSlice('\n'); err != nil { // the final CRLF
				return 0, fmt.Errorf("raw client: %w", err)
			}
			if first == 0 {
				return 0, errors.New("raw client: no data line")
			}
			return first, nil
		}
	}
}
