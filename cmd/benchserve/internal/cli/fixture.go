package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/benchserve/benchserve/fixtures"
)

// runFixture serves the fixture server on --addr until ctx is done
// (SIGINT/SIGTERM from Main).
func runFixture(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("benchserve fixture", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	addr := fs.String("addr", defaultAddr, "host:port to listen on")
	model := fs.String("model", fixtures.DefaultModel, "model id the fixture reports")
	apiKey := fs.String("api-key", "", "require this Bearer token on /v1/ requests (default: none)")
	slots := fs.Int("slots", 0, "generation slots: serve at most N completions at once, the rest wait in a FIFO line before their first token (0: unlimited)")
	closeKeptAlive := fs.Bool("close-kept-alive", false, "close each kept-alive connection after its answer without \"Connection: close\", when the next request arrives on it (the race a client meets with servers that close connections after answers or when idle)")
	var faultNames listValue
	fs.Var(&faultNames, "fault", "break one protocol rule on purpose, for benchserve conformance to find (repeatable; the faults are listed below)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: benchserve fixture [--addr %s] [--model NAME] [--api-key KEY] [--slots N] [--close-kept-alive] [--fault NAME]...\n\n"+
			"Serves the embedded deterministic OpenAI-compatible fixture server until\n"+
			"interrupted (Ctrl-C). Point benchserve at it with --url. With --slots N it\n"+
			"behaves like a server of limited capacity: TTFT grows with the load.\n\n", defaultAddr)
		fs.PrintDefaults()
		fmt.Fprint(e.stderr, "\nFaults (--fault NAME: the contract of benchserve conformance it breaks):\n")
		for _, f := range fixtures.Faults() {
			fmt.Fprintf(e.stderr, "  %-30s %s\n", f, f.Contract())
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if *slots < 0 {
		fmt.Fprintf(e.stderr, "benchserve fixture: --slots %d: want 0 (unlimited) or more\n", *slots)
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "benchserve fixture: unexpected arguments: %v\n", fs.Args())
		return ExitUsage
	}
	var faults []fixtures.Fault
	for _, name := range faultNames {
		f, err := fixtures.ParseFault(name)
		if err != nil {
			fmt.Fprintf(e.stderr, "benchserve fixture: --fault: %v\n", err)
			return ExitUsage
		}
		faults = append(faults, f)
	}
	err := fixtures.ListenAndServe(ctx, *addr, fixtures.Options{Model: *model, APIKey: *apiKey, Slots: *slots, Faults: faults, CloseKeptAlive: *closeKeptAlive}, func(s *fixtures.Server) {
		fmt.Fprintf(e.stdout, "benchserve fixture: serving model %q on %s (Ctrl-C to stop)\n", *model, s.URL)
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve fixture: %v\n", err)
		return ExitUsage
	}
	fmt.Fprintln(e.stdout, "benchserve fixture: stopped")
	return ExitOK
}
