package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/benchserve/benchserve/internal/resultio"
)

const recoverUsage = `usage: benchserve recover JOURNAL [--output FILE]

Rebuilds the results of a run that was stopped before it wrote its output
(Ctrl-C, SIGKILL, go test -timeout, a full disk) from its journal,
OUTPUT.journal.jsonl next to the output it was meant to write. Only the
records that finished are written: the case in flight when the run stopped
is absent, and the summary covers what was journaled. A torn last line
(the write the kill interrupted) is dropped and reported.

The format follows --output's extension as for bench-serve (.json, .csv,
.sql, .txt/.table, .db/.sqlite/.sqlite3 appends to a SQLite history,
.html writes the report); without --output the payload JSON goes to stdout.

flags:
`

// runRecover is `benchserve recover JOURNAL [--output FILE]`: exit 0 when
// the results were written, 1 when writing them failed, 2 for usage
// errors and a missing or unreadable journal.
func runRecover(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("benchserve recover", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	output := fs.String("output", "", "write the recovered results to this `file` (format from its extension; default: JSON on stdout)")
	fs.StringVar(output, "o", "", "shorthand for --output")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), recoverUsage)
		fs.PrintDefaults()
	}
	var files []string
	rest := args
	for { // flags may follow the journal
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return ExitOK
			}
			return ExitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) != 1 {
		fmt.Fprintf(e.stderr, "benchserve recover: want exactly one journal, got %d\n", len(files))
		fs.Usage()
		return ExitUsage
	}
	journal := files[0]
	expandHome(&journal, output)
	if resultio.SameFile(journal, *output) {
		fmt.Fprintf(e.stderr, "benchserve recover: --output %s is the journal itself: writing the results would destroy it; choose another --output\n", *output)
		return ExitUsage
	}
	format := resultio.FormatForPath(*output)
	if err := checkOutput(*output, format); err != nil {
		fmt.Fprintf(e.stderr, "benchserve recover: %v\n", err)
		return ExitUsage
	}
	h, recs, err := resultio.ReadJournal(journal)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve recover: %v\n", err)
		return ExitUsage
	}
	if h.Sweep {
		return recoverSweep(e, journal, *output, h, len(recs))
	}
	p := h.Payload(recs)
	of := ""
	if h.Expected > 0 {
		of = fmt.Sprintf(" of the %d the run was to make", h.Expected)
	}
	fmt.Fprintf(e.stderr, "Recovered %d records%s, run %s (workload %q), from %s; cases that had not finished are absent, and the payload is marked incomplete (summary.passed false)\n",
		len(recs), of, h.RunID, h.Workload.Name, journal)
	if h.TornBytes > 0 {
		fmt.Fprintf(e.stderr, "Dropped an incomplete last line of %d bytes (the write the interruption cut)\n", h.TornBytes)
	}
	if *output == "" {
		data, err := resultio.FormatJSON(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "benchserve recover: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintf(e.stdout, "%s\n", data)
		return ExitOK
	}
	if err := resultio.WriteFile(p, *output); err != nil {
		fmt.Fprintf(e.stderr, "benchserve recover: %v\n", err)
		return ExitFailed
	}
	fmt.Fprintf(e.stderr, "Workload results written to %s\n", *output)
	return ExitOK
}

// recoverSweep writes the rows of a prompt sweep's journal (one per
// sweep point that finished; the point in flight when the run stopped is
// absent) in the format --output's extension names, the table on stdout
// without --output, as the sweep itself does.
func recoverSweep(e *env, journal, output string, h resultio.JournalHeader, records int) int {
	fmt.Fprintf(e.stderr, "Recovered %d sweep rows (%d measured requests), run %s, from %s; sweep points that had not finished are absent\n",
		len(h.SweepRows), records, h.RunID, journal)
	if h.TornBytes > 0 {
		fmt.Fprintf(e.stderr, "Dropped an incomplete last line of %d bytes (the write the interruption cut)\n", h.TornBytes)
	}
	return writeSweep(e, h.SweepRows, outputFormat("auto", output, "table"), output)
}
