package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/sweep"
)

// sweepPrinter presents a sweep's progress as the reference prints it
// (run_bench_serve's console lines): the connection, hardware and runtime
// lines, the input notes and the run count, then one line per point. The
// engine reports (sweep.Reporter); the door prints.
func sweepPrinter(out io.Writer) sweep.Reporter {
	return sweep.Reporter{
		Started: func(s sweep.Started) {
			fmt.Fprintf(out, "Connecting to %s...\n", s.URL)
			fmt.Fprintf(out, "Hardware: %s / %.0fGB / %s\n", orDefault(s.Hardware.Chip, "unknown"), s.Hardware.MemoryGB, s.Hardware.OSVersion)
			fmt.Fprintf(out, "Runtime:  model=%s  engine=%s  cache=%s\n", present.Name(s.Model), present.Name(s.Runtime.EngineType), present.Name(s.Runtime.CacheType))
			for _, n := range s.Notes {
				fmt.Fprintln(out, n)
			}
			note := ""
			if s.Warmup > 0 {
				note = fmt.Sprintf(" (+ %d warmup per config)", s.Warmup)
			}
			fmt.Fprintf(out, "Total runs: %d%s\n", s.Points, note)
		},
		Finished: func(pt sweep.Point, o sweep.Outcome) {
			fmt.Fprintln(out, sweepLine(pt, o))
		},
	}
}

// sweepLine is a point's progress line: its label, TTFT, TPS and verdict,
// or FAIL with the reasons when every request failed.
func sweepLine(pt sweep.Point, o sweep.Outcome) string {
	label := sweep.Label(pt)
	if o.Requests-o.Failed == 0 {
		return fmt.Sprintf("  %s: FAIL (all %d requests failed: %s)", label, o.Requests, reasonsText(o.Reasons))
	}
	return fmt.Sprintf("  %s: TTFT=%.0fms  TPS=%s  %s", label, o.Row.TTFTms, tpsText(o.Row.GenTPS), sweepVerdict(o))
}

// sweepVerdict is the progress line's PASS/FAIL with its reason, from the
// engine's counts of the outcomes (sweep.Outcome).
func sweepVerdict(o sweep.Outcome) string {
	switch {
	case o.Failed > 0 || o.Invalid > 0:
		n := o.Failed + o.Invalid
		return fmt.Sprintf("FAIL (%d of %d requests failed: %s)", n, o.Requests, reasonsText(o.Reasons))
	case o.Capped > 0:
		return fmt.Sprintf("PASS (%d of %d answers capped by max_tokens: not validated, as the reference)", o.Capped, o.Requests)
	}
	return "PASS"
}

// reasonsText is a progress line's list of failure reasons, each
// escaped and cut for the terminal (present.Message); the outcome keeps
// them whole.
func reasonsText(reasons []string) string {
	shown := make([]string, len(reasons))
	for i, r := range reasons {
		shown[i] = present.Message(r)
	}
	return strings.Join(shown, "; ")
}

// tpsText prints a row's generation rate, or says why there is none (no
// request's decode span was observable: bursts, one-chunk answers).
func tpsText(v float64) string {
	if math.IsNaN(v) {
		return "n/a (no timed decode)"
	}
	return fmt.Sprintf("%.1f", v)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
