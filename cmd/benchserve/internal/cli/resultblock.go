package cli

import (
	"fmt"
	"strings"

	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// resultBlock is vLLM's "Serving Benchmark Result" block for a load run
// (vllm bench serve prints it; a user coming from there looks for it):
// request counts, duration, tokens and throughputs, then mean, median
// and p99 of TTFT, TPOT, ITL and E2EL in ms, each from the run's one
// summary (summary.Payload, the figures the payload and the SLOs use). A
// metric without samples reads "null" and why, not 0. Failed requests
// are counted here and, when there are any, on an Error: line with their
// kinds, so a run without SLOs still shows them at its end.
func resultBlock(p *results.Payload) string {
	st := summary.Payload(p)
	inputTokens := 0
	for _, r := range p.Results {
		if !r.Interrupted && !r.Outcome.Failed() {
			inputTokens += r.Metrics.PromptTokens
		}
	}
	var b strings.Builder
	row := func(label, value string) { fmt.Fprintf(&b, "%-40s %s\n", label, value) }
	num := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	b.WriteString("============ Serving Benchmark Result ============\n")
	row("Successful requests:", fmt.Sprint(st.Succeeded))
	row("Failed requests:", fmt.Sprint(st.Failed))
	row("Benchmark duration (s):", num(st.Duration.Seconds()))
	row("Total input tokens:", fmt.Sprint(inputTokens))
	row("Total generated tokens:", fmt.Sprint(st.OutputTokens))
	if sc := p.Schedule; sc != nil && sc.RequestThroughput != nil {
		row("Request throughput (req/s):", num(*sc.RequestThroughput))
	} else {
		row("Request throughput (req/s):", num(st.RequestThroughput))
	}
	row("Output token throughput (tok/s):", num(st.OutputThroughput))
	if secs := st.Duration.Seconds(); secs > 0 {
		row("Total token throughput (tok/s):", num(float64(inputTokens+st.OutputTokens)/secs))
	}
	for _, m := range []struct {
		title, name string
		d           results.Dist
	}{
		{"Time to First Token", "TTFT", st.TTFT},
		{"Time per Output Token (excl. 1st token)", "TPOT", st.TPOT},
		{"Inter-token Latency", "ITL", st.ITL},
		{"End-to-end Latency", "E2EL", st.E2EL},
	} {
		pad := max(0, 50-len(m.title))
		fmt.Fprintf(&b, "%s%s%s\n", strings.Repeat("-", pad/2), m.title, strings.Repeat("-", pad-pad/2))
		if m.d.Count == 0 {
			row(fmt.Sprintf("%s (ms):", m.name), "null (no request measured it)")
			continue
		}
		row(fmt.Sprintf("Mean %s (ms):", m.name), num(m.d.Mean))
		row(fmt.Sprintf("Median %s (ms):", m.name), num(m.d.Median))
		row(fmt.Sprintf("P99 %s (ms):", m.name), num(m.d.P99))
	}
	b.WriteString("==================================================\n")
	if st.Failed > 0 {
		kinds := []string{}
		for _, k := range st.ErrorKinds() {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, st.Errors[k]))
		}
		fmt.Fprintf(&b, "Error: %d of %d requests failed (%s)\n", st.Failed, st.Requests, strings.Join(kinds, ", "))
	}
	return b.String()
}
