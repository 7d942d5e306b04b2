package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// runMerge is `benchserve merge OUT IN...`: it joins the JSON payloads of
// one sharded run (every shard started with the same --run-id) into OUT,
// in the format OUT's extension names (resultio.WriteFile), with the
// summary recomputed from every record and the inputs' run-level
// thresholds evaluated again on the whole run. It exits ExitFailed when
// one of those thresholds fails, ExitUsage for bad arguments or inputs.
func runMerge(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("benchserve merge", flag.ContinueOnError)
	var slos listValue
	fs.Var(&slos, "slo", "run-level threshold to evaluate on the merged run, e.g. 'ttft_p95_ms <= 500' (repeatable; added to the inputs' own)")
	help := func(w io.Writer) {
		fmt.Fprint(w, "Usage: benchserve merge [--slo EXPR]... OUT IN...\n\n"+
			"Joins the results payloads (JSON) of one run's shards (--shard I/N, the same\n"+
			"--run-id) into OUT: every record once, statistics recomputed exactly from all\n"+
			"records, and the load figures too (achieved rate over the window in which\n"+
			"every shard was sending, goodput, peak in flight, lag, the shards' start\n"+
			"skew). Refuses payloads of different runs, workloads (by content) or load\n"+
			"settings, sharded and unsharded payloads together, a shard that lost records\n"+
			"and damaged records, naming the files. OUT's extension picks\n"+
			"the format (.json, .csv, .sql, .txt, .db/.sqlite, .html). Inputs must be JSON\n"+
			"payloads: SQLite rows and sweep rows keep no shard and no per-request ITL.\n\n")
		printFlags(w, fs)
	}
	if code, ok := parseFlags(e, fs, "merge", help, args); !ok {
		return code
	}
	if fs.NArg() < 2 {
		fmt.Fprintln(e.stderr, "benchserve merge: want OUT and at least one IN (benchserve merge merged.json shard-0.json shard-1.json ...)")
		fmt.Fprintln(e.stderr, helpPointer("merge"))
		return ExitUsage
	}
	out, ins := fs.Arg(0), fs.Args()[1:]
	expandHome(&out)
	for i := range ins {
		expandHome(&ins[i])
	}
	for _, in := range ins {
		if resultio.SameFile(in, out) {
			fmt.Fprintf(e.stderr, "benchserve merge: %s is both the output and an input (the output comes first)\n", out)
			return ExitUsage
		}
	}
	if err := resultio.CheckOutput(out, ""); err != nil {
		fmt.Fprintf(e.stderr, "benchserve merge: %s\n", explain(err))
		return ExitUsage
	}
	ps := make([]*results.Payload, len(ins))
	for i, in := range ins {
		p, err := readShardPayload(in)
		if err != nil {
			fmt.Fprintf(e.stderr, "benchserve merge: %s\n", explain(err))
			return ExitUsage
		}
		ps[i] = p
	}
	merged, err := resultio.MergeNamed(ins, ps)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve merge: %s\n", explain(err))
		return ExitUsage
	}
	thresholds := append(resultio.SLOThresholds(ps...), slos...)
	outcomes, err := loadgen.CheckPayload(merged, thresholds)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve merge: %s\n", explain(err))
		return ExitUsage
	}
	if len(thresholds) == 0 {
		merged.SLO = nil
	}
	if !writePayloadFile(e, "merge", merged, out) {
		return ExitUsage
	}
	shards := map[int]bool{}
	for _, r := range merged.Results {
		if r.Shard != nil {
			shards[*r.Shard] = true
		}
	}
	fmt.Fprintf(e.stdout, "benchserve merge: run %s, workload \"%s\": %d records from %d payloads (%d shards) → %s\n",
		present.Name(merged.RunID), present.Name(merged.Workload.Name), len(merged.Results), len(ins), len(shards), out)
	if sc := merged.Schedule; sc != nil {
		fmt.Fprint(e.stdout, scheduleLine(sc))
		if sc.StartSkewS != nil {
			fmt.Fprintf(e.stdout, "Start skew: the shards' schedules started %.3g s apart\n", *sc.StartSkewS)
		}
		for _, n := range sc.Notes {
			fmt.Fprintf(e.stderr, "benchserve merge: warning: %s\n", present.Message(n))
		}
	}
	if merged.Incomplete != nil {
		fmt.Fprintf(e.stderr, "benchserve merge: warning: %s (summary.passed false)\n", present.Message(merged.Incomplete.Reason))
	}
	code := ExitOK
	for _, o := range outcomes {
		verdict := "ok  "
		if !o.Pass {
			verdict, code = "FAIL", ExitFailed
		}
		fmt.Fprintf(e.stdout, "  %s %s\n", verdict, present.Message(o.String()))
	}
	return code
}

// readShardPayload reads one workload results payload (JSON) for merge; the
// error names the file and says what it holds instead.
func readShardPayload(path string) (*results.Payload, error) {
	switch resultio.FormatForPath(path) {
	case "json", "":
	case resultio.FormatSQLite:
		return nil, fmt.Errorf("%s: SQLite input is not supported: its rows keep neither the shard nor per-request ITL, so the statistics could not be recomputed exactly; merge the shards' JSON payloads (--output shard-N.json)", path)
	default:
		return nil, fmt.Errorf("%s: not a JSON payload (extension %q): merge the shards' JSON payloads", path, resultio.FormatForPath(path))
	}
	data, err := resultio.ReadFileLimit(path, resultio.MaxPayloadBytes)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimSpace(data)
	if bytes.HasPrefix(data, []byte("[")) {
		return nil, fmt.Errorf("%s: a prompt-sweep result (a JSON array of rows), not a workload payload: sweep rows hold means, which cannot be merged exactly", path)
	}
	p, err := resultio.DecodeMergeInput(path, data)
	if err != nil {
		return nil, err
	}
	if p.RunID == "" || p.Results == nil {
		return nil, fmt.Errorf("%s: not a workload results payload (no run_id or results)", path)
	}
	return p, nil
}
