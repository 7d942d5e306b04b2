package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/benchserve/benchserve/internal/present"
)

// env is what a command may touch besides its arguments. Once run has
// called presenting, stdout and stderr are *present.Writer: whatever a
// command prints there is escaped and cut (print.go); results data goes
// through printData.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// rawOut and rawErr are the writers e was made with (presenting).
	rawOut, rawErr io.Writer
	// redact replaces the run's secrets (redacting); nil: none.
	redact func(string) string
}

// command is one subcommand of benchserve.
type command struct {
	name    string
	summary string
	// synopses are the command's usage lines in --help: the arguments
	// after "benchserve" and what that form does (the summary when empty).
	synopses []synopsis
	run      func(ctx context.Context, e *env, args []string) int
}

// synopsis is one usage line of a command.
type synopsis struct{ args, what string }

// defaultCommand runs when the first argument is not a subcommand name
// (benchserve --workload x.json, benchserve --prompts short, …).
const defaultCommand = "bench-serve"

// commands is the subcommand table; --help's usage lines are generated
// from it (commandUsage). To add a command, append an entry whose run
// parses its own flags from args (the arguments after the subcommand name)
// and returns the exit status. It is filled in init because runBench's
// help text reads it (a package-level initializer would be a cycle).
var commands []command

func init() {
	commands = []command{
		{name: "bench-serve", summary: "benchmark a running server (the default command)", run: runBench, synopses: []synopsis{
			{"[bench-serve] --workload FILE [flags]", "run a declarative workload"},
			{"[bench-serve] [--prompts short,medium,long] [flags]", "run a prompt sweep"},
		}},
		{name: "report", summary: "write a self-contained HTML report of results files (JSON payloads, sweeps, SQLite)", run: runReport, synopses: []synopsis{
			{"report [--output report.html] [--title TITLE] RESULTS...", ""},
		}},
		{name: "recover", summary: "write the results of an interrupted run from its journal (OUTPUT.journal.jsonl)", run: runRecover, synopses: []synopsis{
			{"recover JOURNAL [--output FILE]", ""},
		}},
		{name: "capacity", summary: "find the highest request rate (or concurrency) at which every SLO holds", run: runCapacity, synopses: []synopsis{
			{"capacity --url URL (--workload FILE | --prompts SET) --slo EXPR... [flags]", ""},
		}},
		{name: "merge", summary: "join the JSON payloads of one run's shards (--shard I/N, same --run-id) into one, statistics recomputed", run: runMerge, synopses: []synopsis{
			{"merge [--slo EXPR]... OUT IN...", ""},
		}},
		{name: "conformance", summary: "check that a server keeps the OpenAI Chat Completions protocol (one verdict per contract)", run: runConformance, synopses: []synopsis{
			{conformanceSynopsis, ""},
			{matrixSynopsis, "a Markdown compatibility matrix of conformance results, a column per server"},
		}},
		{name: "fixture", summary: "serve the embedded deterministic fixture server until interrupted", run: runFixture, synopses: []synopsis{
			{"fixture [--addr HOST:PORT] [--slots N] [--close-kept-alive] [--fault NAME]... [flags]", ""},
		}},
		{name: "compare", summary: "is the candidate worse than the base? compare workload payloads metric by metric with confidence intervals (exit 1 on a regression)", run: runCompare, synopses: []synopsis{
			{compareSynopsis, ""},
		}},
		{name: "version", summary: "print the benchserve version", run: runVersion},
	}
}

// commandUsage writes for each synopsis of every command (a command
// without synopses gets "benchserve NAME") a line "  benchserve ARGS" and
// under it what that form does, folded to helpCols: no column is padded
// to the longest synopsis.
func commandUsage(w io.Writer) {
	for _, c := range commands {
		syn := c.synopses
		if len(syn) == 0 {
			syn = []synopsis{{c.name, ""}}
		}
		for _, s := range syn {
			what := s.what
			if what == "" {
				what = c.summary
			}
			fmt.Fprintln(w, present.Wrap("  benchserve "+s.args, maxHelpCols, "      "))
			fmt.Fprintln(w, present.Wrap("      "+what, helpCols, "      "))
		}
	}
}

// runReport is `benchserve report RESULTS... --output report.html`.
func runReport(_ context.Context, e *env, args []string) int {
	return reportMain(e, args)
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}
