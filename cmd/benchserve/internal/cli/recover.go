package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/resultio"
)

const recoverUsage = `Usage: benchserve recover JOURNAL [--output FILE] [--strict]

Rebuilds the results of a run that was stopped before it wrote its output
(Ctrl-C, SIGKILL, go test -timeout, a full disk) from its journal,
OUTPUT.journal.jsonl next to the output it was meant to write. Only the
records that finished are written: the case in flight when the run stopped
is absent, and the summary covers what was journaled. A torn last line
(the write the kill interrupted) is dropped and reported; a corrupt line
elsewhere is skipped with a warning naming it (--strict refuses the
journal instead). A load run's journal keeps its schedule settings and
shard, so a recovered shard merges with the others (benchserve merge);
its payload is marked incomplete. Recovering into a SQLite history twice
does not append the run twice.

The format follows --output's extension as for bench-serve (.json, .csv,
.sql, .txt/.table, .db/.sqlite/.sqlite3 appends to a SQLite history,
.html writes the report); without --output the payload JSON goes to stdout.

Flags:
`

// runRecover is `benchserve recover JOURNAL [--output FILE]`: exit 0 when
// the results were written, 1 when writing them failed, 2 for usage
// errors and a missing or unreadable journal.
func runRecover(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("benchserve recover", flag.ContinueOnError)
	output := fs.String("output", "", "write the recovered results to this `file` (format from its extension; default: JSON on stdout)")
	fs.StringVar(output, "o", "", "shorthand for --output")
	strict := fs.Bool("strict", false, "refuse a journal with a corrupt line instead of skipping the line")
	help := func(w io.Writer) {
		fmt.Fprint(w, recoverUsage)
		printFlags(w, fs)
	}
	var files []string
	rest := args
	for { // flags may follow the journal
		if code, ok := parseFlags(e, fs, "recover", help, rest); !ok {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) != 1 {
		fmt.Fprintf(e.stderr, "benchserve recover: want exactly one journal, got %d\n", len(files))
		fmt.Fprintln(e.stderr, helpPointer("recover"))
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
		fmt.Fprintf(e.stderr, "benchserve recover: %s\n", explain(err))
		return ExitUsage
	}
	h, recs, err := resultio.ReadJournalWith(journal, resultio.JournalReadOptions{SkipCorrupt: !*strict})
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve recover: %s\n", explain(err))
		if errors.Is(err, resultio.ErrBadJournal) && *strict {
			fmt.Fprintln(e.stderr, "benchserve recover: without --strict the corrupt line is skipped and the rest recovered")
		}
		return ExitUsage
	}
	for _, s := range h.Skipped {
		fmt.Fprintf(e.stderr, "benchserve recover: warning: %s: skipped a corrupt %s (--strict refuses the journal)\n", journal, present.Message(s))
	}
	if h.Sweep {
		return recoverSweep(e, journal, *output, h, len(recs))
	}
	p := h.Payload(recs)
	of := ""
	switch {
	case h.Expected > 0 && h.Schedule != nil && h.Schedule.Shard != "":
		of = fmt.Sprintf(" of the %d requests shard %s was to send", h.Expected, h.Schedule.Shard)
	case h.Expected > 0 && h.Schedule != nil:
		of = fmt.Sprintf(" of the %d requests the load run was to send", h.Expected)
	case h.Expected > 0:
		of = fmt.Sprintf(" of the %d the run was to make", h.Expected)
	case h.Schedule != nil:
		of = " of a load run bounded by its duration"
	}
	fmt.Fprintf(e.stderr, "Recovered %d records%s, run %s (workload \"%s\"), from %s; cases that had not finished are absent, and the payload is marked incomplete (summary.passed false)\n",
		len(recs), of, present.Name(h.RunID), present.Name(h.Workload.Name), journal)
	if h.TornBytes > 0 {
		fmt.Fprintf(e.stderr, "Dropped an incomplete last line of %d bytes (the write the interruption cut)\n", h.TornBytes)
	}
	if *output == "" {
		data, err := resultio.FormatJSON(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "benchserve recover: %s\n", explain(err))
			return ExitFailed
		}
		e.printData("json", data)
		return ExitOK
	}
	if !writePayloadFile(e, "recover", p, *output) {
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
		len(h.SweepRows), records, present.Name(h.RunID), journal)
	if h.TornBytes > 0 {
		fmt.Fprintf(e.stderr, "Dropped an incomplete last line of %d bytes (the write the interruption cut)\n", h.TornBytes)
	}
	return writeSweep(e, h.SweepRows, e.outputFormat("auto", output, "table"), output)
}
