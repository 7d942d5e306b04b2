package cli

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/sweep"
	"github.com/benchserve/benchserve/results"
)

// TestSweepPrinterPrintsTheReferenceLines: the door prints the reference's
// console lines from what the engine reports, byte for byte.
func TestSweepPrinterPrintsTheReferenceLines(t *testing.T) {
	var out bytes.Buffer
	p := sweepPrinter(&out)
	p.Started(sweep.Started{URL: "http://127.0.0.1:8080", Hardware: results.Hardware{MemoryGB: 64, OSVersion: "Linux 6.1"},
		Runtime: results.Runtime{EngineType: "simple", CacheType: "paged"}, Model: "m1",
		Notes: []string{"System prompt prepended from sys.txt (14 chars)"}, Points: 3, Warmup: 1})
	pt := sweep.Point{PromptSet: "short", Concurrency: 2}
	pass := sweep.Outcome{Requests: 2, Row: results.SweepResult{TTFTms: 41.6, GenTPS: 55.04}}
	p.Finished(pt, pass)
	capped := pass
	capped.Capped = 1
	p.Finished(pt, capped)
	untimed := pass
	untimed.Row.GenTPS = math.NaN()
	untimed.Invalid, untimed.Reasons = 1, []string{"Empty response content"}
	p.Finished(pt, untimed)
	p.Finished(pt, sweep.Outcome{Requests: 2, Failed: 2, Reasons: []string{"stream: HTTP 500: \x1b[2Jboom"}})
	assert.Equal(t, "Connecting to http://127.0.0.1:8080...\n"+
		"Hardware: unknown / 64GB / Linux 6.1\n"+
		"Runtime:  model=m1  engine=simple  cache=paged\n"+
		"System prompt prepended from sys.txt (14 chars)\n"+
		"Total runs: 3 (+ 1 warmup per config)\n"+
		"  short conc=2 rep=0: TTFT=42ms  TPS=55.0  PASS\n"+
		"  short conc=2 rep=0: TTFT=42ms  TPS=55.0  PASS (1 of 2 answers capped by max_tokens: not validated, as the reference)\n"+
		"  short conc=2 rep=0: TTFT=42ms  TPS=n/a (no timed decode)  FAIL (1 of 2 requests failed: Empty response content)\n"+
		"  short conc=2 rep=0: FAIL (all 2 requests failed: stream: HTTP 500: \\x1b[2Jboom)\n", out.String())
}
