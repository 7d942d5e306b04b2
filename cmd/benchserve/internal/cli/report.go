package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/report"
)

const reportUsage = `Usage: benchserve report [--output report.html] [--title TITLE] RESULTS...

Writes one self-contained HTML report (opens from disk, no network) for
RESULTS: workload payload JSON files, sweep JSON files (arrays of sweep
rows), capacity search results (capacity.json), SQLite files written by
benchserve or the reference (tables bench_serve_workload and bench_serve)
and the journals (OUTPUT.journal.jsonl) interrupted runs leave. Every
later run of a workload is compared with the first one given, as
benchserve compare does (per case and metric the change with its interval
and a verdict better, worse, ~ or "too few samples"; pass->fail cases are
regressions), with the two runs' latency CDFs overlaid per case. The
report accepts differences in model, server and settings and names them;
a run that cannot be compared (no workload.digest, a first run whose
every request failed) is skipped with a line on stderr; a later run whose
every request failed is a regression.

Flags:
`

// reportMain runs `benchserve report RESULTS... --output report.html` with args
// (the arguments after "report"; flags may come before or after the
// files) and returns the exit code: 0 when the report was written, 1 when
// writing it failed, 2 for usage errors and bad inputs (the message names
// the file). It prints "wrote PATH (N runs)" to stdout and errors to
// stderr. -h/--help prints usage to stdout and returns 0.
func reportMain(e *env, args []string) int {
	stdout, stderr := e.stdout, e.stderr
	fs := flag.NewFlagSet("benchserve report", flag.ContinueOnError)
	output := fs.String("output", "report.html", "write the report to this `file` (replaced atomically)")
	fs.StringVar(output, "o", "report.html", "shorthand for --output")
	title := fs.String("title", "", "page `title` (default \"benchserve report\")")
	help := func(w io.Writer) {
		fmt.Fprint(w, reportUsage)
		printFlags(w, fs)
	}
	// The standard flag package stops at the first file name; keep
	// parsing after each one so `report a.json --output r.html` works.
	var files []string
	rest := args
	for {
		if code, ok := parseFlags(e, fs, "report", help, rest); !ok {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "benchserve report: no results files given")
		fmt.Fprintln(stderr, helpPointer("report"))
		return 2
	}
	expandHome(output)
	for i := range files {
		expandHome(&files[i])
	}
	for _, f := range files {
		if resultio.SameFile(f, *output) {
			fmt.Fprintf(stderr, "benchserve report: --output %s is the same file as the input %s: writing the report would destroy it; choose another --output\n", *output, f)
			return 2
		}
	}
	var runs []report.Run
	var history []bool
	for _, f := range files {
		rs, err := report.Load(f)
		if err != nil {
			fmt.Fprintf(stderr, "benchserve report: %s\n", explain(err))
			return 2
		}
		runs = append(runs, rs...)
		for range rs {
			history = append(history, isSQLite(f))
		}
	}
	opts := report.Options{Title: *title, Comparisons: reportComparisons(stderr, runs, history)}
	if err := report.WriteFileWith(*output, opts, runs...); err != nil {
		fmt.Fprintf(stderr, "benchserve report: %s\n", explain(err))
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (%s)\n", *output, runsWord(len(runs)))
	return 0
}

func runsWord(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}
