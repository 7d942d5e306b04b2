package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

const compareSynopsis = "compare [--fail-on 'METRIC +N%']... [--alpha A] [--format F] BASE... -- CANDIDATE..."

const compareUsage = `Usage: benchserve compare [flags] BASE CANDIDATE
       benchserve compare [flags] BASE... -- CANDIDATE...

Is the candidate worse than the base? Compares workload payloads (JSON, or
FILE:RUN_ID of a SQLite history) of the same workload: each side is one file, or several (repeated runs,
compared as a group) with "--" between the sides. Per case and metric
(ttft, tpot, itl, e2el at p50/p95/p99, gen_tps, error_rate; a load run's
throughput_rps and goodput_rps) it prints both values, the change with its
confidence interval and a verdict: better, worse, ~ (not significant) or
"too few samples". The change column, "shift [interval]", is for a median
the Hodges-Lehmann shift (the median of all candidate - base differences,
which can differ from the difference of the two medians beside it), for
p95/p99 and itl the percentiles' difference, for error_rate the failed
shares'; each output says so under "shift [interval] is, by row:". Medians are tested by rank (Mann-Whitney U and
Hodges-Lehmann; paired by case, Wilcoxon signed-rank, when both sides ran
the same cases), other percentiles by their intervals over the effective
sample size, error rates by Newcombe's interval; --alpha holds for all rows
at once (Holm). A case that passed in the base and fails in the candidate
is a regression whatever the numbers; greedy answers (temperature 0 and a
seed) that changed are listed. Conformance results (benchserve conformance
--output) compare by their contracts: every changed outcome is listed, a
contract that went from pass to fail is a regression. Prompt sweeps compare
per sweep point and column (ttft_mean_ms ... requests_per_s, one sample per
repetition); capacity results (capacity.json) by their capacity, worse or
better when the two intervals do not overlap, ~ when they do. --format html
writes one self-contained page (no network): the comparison's verdict in
its header, the table, regressions and changed greedy answers, the two
sides overlaid (per case the empirical CDFs of TTFT, TPOT and E2EL; for
capacity results both intervals, probes and goodput curves) and then each
run's own report; without --output it goes to stdout, but never to a
terminal (exit 2: give --output). A side's files
must all be of one kind. A file given twice (the same path or the same
content), on one side or both, is a warning on stderr naming it; when the
candidate is the base (every input on both sides) compare exits 2, since
that comparison says no regression whatever the server did. FILE:RUN_ID picks one run of a SQLite history
(history.db:1a2b3c4d); its rows keep no workload digest, so its runs are
matched by workload name, case ids and request settings.

Exit status: 0 no regression, 1 a regression (a pass->fail, a candidate
run whose every request failed, a failed --fail-on gate, or without gates
any row called worse), 2 usage errors, a --fail-on gate no row could
decide (its metric absent, or every row of it with too few samples: the
table is written, the verdict UNDECIDED) and inputs that cannot be
compared (different model, workload content or settings unless
--allow-different names them; empty runs; a base run whose every request
failed; payloads without workload.digest; the candidate being the base),
nothing written then.

`

// runCompare is `benchserve compare BASE... -- CANDIDATE...`.
func runCompare(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("benchserve compare", flag.ContinueOnError)
	var gates, allow listValue
	fs.Var(&gates, "fail-on", "fail (exit 1) when METRIC is significantly worse by more than the tolerance, e.g. 'ttft_p95_ms +10%' (relative) or 'ttft_p95_ms +5' (in the metric's unit); repeatable")
	alpha := fs.Float64("alpha", 0.05, "familywise significance `level` of the verdicts")
	format := fs.String("format", "table", "output `format`: "+strings.Join(compare.Formats, ", "))
	fs.Var(&allow, "allow-different", "accept differences between the sides in these `names` (comma-separated: "+strings.Join(compare.AllowNames, ", ")+"); repeatable")
	output := fs.String("output", "", "write the output to this `file` (replaced atomically) instead of stdout")
	help := func(w io.Writer) {
		fmt.Fprint(w, compareUsage)
		printFlags(w, fs)
	}
	left, right, split := cutArgs(args)
	baseFiles, code, ok := parseFiles(e, fs, help, left)
	if !ok {
		return code
	}
	candFiles, code, ok := parseFiles(e, fs, help, right)
	if !ok {
		return code
	}
	if !split && len(baseFiles) == 2 {
		baseFiles, candFiles = baseFiles[:1], baseFiles[1:]
	}
	if len(baseFiles) == 0 || len(candFiles) == 0 {
		fmt.Fprintln(e.stderr, "benchserve compare: want BASE CANDIDATE, or BASE... -- CANDIDATE... for several runs a side")
		fmt.Fprintln(e.stderr, helpPointer("compare"))
		return ExitUsage
	}
	if !slices.Contains(compare.Formats, *format) {
		fmt.Fprintf(e.stderr, "benchserve compare: --format %q: want one of %s\n", *format, strings.Join(compare.Formats, ", "))
		return ExitUsage
	}
	if *format == "html" && *output == "" && e.onTerminal() {
		fmt.Fprintln(e.stderr, "benchserve compare: --format html writes a page, not text for a terminal: give --output cmp.html (or redirect stdout)")
		return ExitUsage
	}
	opt := compare.Options{Alpha: *alpha}
	for _, g := range gates {
		parsed, err := compare.ParseGate(g)
		if err != nil {
			fmt.Fprintf(e.stderr, "benchserve compare: %s\n", explain(err))
			return ExitUsage
		}
		opt.Gates = append(opt.Gates, parsed)
	}
	for _, a := range allow {
		for _, name := range strings.Split(a, ",") {
			name = strings.TrimSpace(name)
			if !slices.Contains(compare.AllowNames, name) {
				fmt.Fprintf(e.stderr, "benchserve compare: --allow-different %q: want some of %s\n", name, strings.Join(compare.AllowNames, ", "))
				return ExitUsage
			}
			opt.Allow = append(opt.Allow, name)
		}
	}
	if *output != "" {
		expandHome(output)
		for _, f := range append(slices.Clone(baseFiles), candFiles...) {
			if resultio.SameFile(f, *output) {
				fmt.Fprintf(e.stderr, "benchserve compare: --output %s is the input %s: writing would destroy it\n", *output, f)
				return ExitUsage
			}
		}
		if err := resultio.CheckOutput(*output, "txt"); err != nil {
			fmt.Fprintf(e.stderr, "benchserve compare: %s\n", explain(err))
			return ExitUsage
		}
	}
	warnings, err := duplicateInputs(baseFiles, candFiles)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve compare: %s\n", explain(err))
		return ExitUsage
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "benchserve compare: warning: %s\n", present.Message(w))
	}
	base, err := loadSide(baseFiles)
	if err == nil {
		var cand *sideRuns
		if cand, err = loadSide(candFiles); err == nil {
			if err = sameKind(base, cand); err == nil {
				return writeComparison(e, base, cand, opt, *format, *output)
			}
		}
	}
	fmt.Fprintf(e.stderr, "benchserve compare: %s\n", explain(err))
	return ExitUsage
}

func writeComparison(e *env, base, cand *sideRuns, opt compare.Options, format, output string) int {
	var cmp *results.Comparison
	var err error
	switch base.kind {
	case kindSweep:
		cmp, err = compare.Sweeps(base.sweeps, cand.sweeps, opt)
	case kindCapacity:
		cmp, err = compare.Capacities(base.capacities, cand.capacities, opt)
	default:
		cmp, err = compare.Workloads(base.workloads, cand.workloads, opt)
	}
	if err == nil && format == "benchstat" && base.kind != kindWorkload {
		err = fmt.Errorf("--format benchstat writes workload payloads' requests; %s is %s: use table, markdown or json", base.files[0], base.kind)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve compare: %s\n", explain(err))
		return ExitUsage
	}
	var data []byte
	if format == "benchstat" {
		data = compare.Benchstat(base.workloads, cand.workloads)
	} else if format == "html" {
		data, err = comparisonPage(cmp, base, cand)
	} else {
		data, err = compare.Format(cmp, format)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve compare: %s\n", explain(err))
		return ExitUsage
	}
	if output != "" {
		if err := resultio.WriteFileAtomic(output, data, 0o644); err != nil {
			fmt.Fprintf(e.stderr, "benchserve compare: %s\n", explain(err))
			return ExitUsage
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", output)
	} else {
		e.printData(dataKind(format), data)
	}
	if cmp.Regressed {
		if output != "" || format != "table" && format != "markdown" {
			fmt.Fprintln(e.stderr, "benchserve compare: the candidate regressed")
		}
		return ExitFailed
	}
	if len(cmp.GateUndecided) > 0 {
		// Not "no regression": the gates asked for could not be
		// evaluated on these inputs.
		for _, u := range cmp.GateUndecided {
			fmt.Fprintf(e.stderr, "benchserve compare: --fail-on %s\n", present.Line(u))
		}
		return ExitUsage
	}
	return ExitOK
}

// dataKind is how printData treats a format's bytes.
func dataKind(format string) string {
	switch format {
	case "json":
		return "json"
	case "benchstat", "html":
		return format
	}
	return "table"
}

// cutArgs splits args at the first "--": the base's files and flags
// before it, the candidate's after.
func cutArgs(args []string) (left, right []string, split bool) {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i], args[i+1:], true
	}
	return args, nil, false
}

// parseFiles parses flags anywhere among file names.
func parseFiles(e *env, fs *flag.FlagSet, help func(io.Writer), args []string) ([]string, int, bool) {
	var files []string
	for {
		if code, ok := parseFlags(e, fs, "compare", help, args); !ok {
			return nil, code, false
		}
		if fs.NArg() == 0 {
			return files, 0, true
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
