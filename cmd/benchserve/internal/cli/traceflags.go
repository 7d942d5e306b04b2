package cli

import (
	"slices"

	"github.com/benchserve/benchserve/internal/traces"
)

// The trace generators' flags (--dataset-name mooncake|azure) join the
// dataset flags; each sets the parameter of its name with underscores.
func init() {
	datasetIntFlags = append(datasetIntFlags,
		[2]string{"trace-block-size", "mooncake: `tokens` per hash id of the trace (default 512)"})
	datasetFloatFlags = append(datasetFloatFlags,
		[2]string{"trace-scale", "mooncake, azure: send each request at its timestamp × `factor` (default 1: the\ntrace's pace; 0.5 twice as fast)"})
}

// traceFlags are the flags only a trace replay takes.
var traceFlags = []string{"trace-block-size", "trace-scale"}

// isTrace reports whether --dataset-name names a timed trace, which is
// replayed at its own times (runner.Trace) rather than sent on a rate.
func (d *datasetFlags) isTrace() bool { return slices.Contains(traces.Formats, d.name) }

// checkTrace adds to pr the flags that do not go with d: a trace flag
// without a trace, and for a trace the arrival flags (the trace's
// timestamps are the schedule) and sharding.
func (f *benchFlags) checkTrace(pr *problems) {
	if !f.dataset.isTrace() {
		for _, name := range traceFlags {
			if f.given(name) {
				pr.addUsage("--%s applies to a trace replay (--dataset-name mooncake or azure)", name)
			}
		}
		return
	}
	for _, name := range []string{"request-rate", "burstiness", "mix", "shard"} {
		if f.given(name) {
			pr.addUsage("--%s does not apply to a trace replay: its timestamps (× --trace-scale) are the schedule", name)
		}
	}
}

// checkTraceCapacity refuses a trace as a capacity search's mix: a
// capacity search sets the arrival rate, a trace has its own.
func (f *capacityFlags) checkTraceCapacity(pr *problems) bool {
	if !f.dataset.isTrace() {
		return true
	}
	pr.addUsage("--dataset-name %s: a trace has its own arrival times, and a capacity search sets the rate: replay it with bench-serve", f.dataset.name)
	return false
}
