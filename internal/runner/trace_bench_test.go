package runner

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/longtest"
	"github.com/benchserve/benchserve/workloads"
)

// genTrace is a Mooncake trace of n lines made as it is read (never a
// file): 64-token prompts of two 32-token blocks, the first shared by
// every request, one timestamp per millisecond.
type genTrace struct {
	n, i int
	buf  []byte
}

func (g *genTrace) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i < g.n {
		g.buf = fmt.Appendf(g.buf, `{"timestamp": %d, "input_length": 64, "output_length": 8, "hash_ids": [0, %d]}`+"\n", g.i, g.i+1)
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func (g *genTrace) Close() error { return nil }

// BenchmarkTraceReplayMemory replays a 100,000-line trace (1,000,000 with
// BENCHSERVE_LONG=1: a minute on a busy 2-core machine) through the
// replay's streaming (Scan, Requests, the pending map, loadgen.RunOpen on
// Offsets, each request's workload case) without the HTTP, the trace's
// times scaled to nothing, and reports the heap still in use at the end
// per request (what the run keeps: loadgen's Sample per request; the
// prompts are not kept) and the bytes allocated per request.
func BenchmarkTraceReplayMemory(b *testing.B) {
	lines := 100_000
	if longtest.Enabled() {
		lines = 1_000_000
	}
	for b.Loop() {
		g, err := datasets.NewTrace("mooncake", datasets.Options{Path: "generated.jsonl",
			Params: map[string]any{datasets.ParamTraceBlockSize: 32, datasets.ParamTraceScale: 1e-9}},
			func() (io.ReadCloser, error) { return &genTrace{n: lines}, nil })
		if err != nil {
			b.Fatal(err)
		}
		if n, err := g.(scanner).Scan(); err != nil || n != lines {
			b.Fatalf("scan: %d requests, %v", n, err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep := newReplay(g.Requests())
		run, err := loadgen.RunOpen(context.Background(), func(ctx context.Context, i int) loadgen.Sample {
			sinkCase = rep.take(i).Case(i, datasets.OutputControl{}, "mooncake") // built, as for a real request
			return loadgen.Sample{}
		}, loadgen.Open{Offsets: rep.next, MaxInFlight: 64})
		rep.stop()
		if err != nil || len(run.Samples) != lines || rep.failed() != nil {
			b.Fatalf("replay: %v, %d samples, %v", err, len(run.Samples), rep.failed())
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-min(before.HeapInuse, after.HeapInuse))/float64(lines), "retained-B/request")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(lines), "alloc-B/request")
		b.ReportMetric(float64(len(rep.pending)), "pending-at-end")
		runtime.KeepAlive(run)
	}
}

var sinkCase workloads.Case
