package cli

import (
	"context"
	"io"

	"github.com/benchserve/benchserve/report"
)

// env is what a command may touch besides its arguments.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// command is one subcommand of benchserve.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

// defaultCommand runs when the first argument is not a subcommand name
// (benchserve --workload x.json, benchserve --prompts short, …).
const defaultCommand = "bench-serve"

// commands is the subcommand table. To add one (for example `report`),
// append an entry whose run parses its own flags from args (the arguments
// after the subcommand name) and returns the exit status.
var commands = []command{
	{name: "bench-serve", summary: "benchmark a running server (the default command)", run: runBench},
	{name: "report", summary: "write a self-contained HTML report of results files (JSON payloads, sweeps, SQLite)", run: runReport},
	{name: "fixture", summary: "serve the embedded deterministic fixture server until interrupted", run: runFixture},
	{name: "version", summary: "print the benchserve version", run: runVersion},
}

// runReport is `benchserve report RESULTS... --output report.html`.
func runReport(_ context.Context, e *env, args []string) int {
	return report.Main(args, e.stdout, e.stderr)
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}
