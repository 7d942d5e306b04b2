package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/suggest"
	"github.com/benchserve/benchserve/workloads"
)

// runFixture serves the fixture server on --addr until ctx is done
// (SIGINT/SIGTERM from Main).
func runFixture(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("benchserve fixture", flag.ContinueOnError)
	addr := fs.String("addr", defaultAddr, "host:port to listen on")
	model := fs.String("model", fixtures.DefaultModel, "model id the fixture reports")
	apiKey := fs.String("api-key", "", "require this Bearer token on /v1/ requests (default: none)")
	slots := fs.Int("slots", 0, "generation slots: serve at most N completions at once, the rest wait in a FIFO line before their first token (0: unlimited)")
	closeKeptAlive := fs.Bool("close-kept-alive", false, "close each kept-alive connection after its answer without \"Connection: close\", when the next request arrives on it (the race a client meets with servers that close connections after answers or when idle)")
	idleClose := fs.Duration("idle-close", 0, "close a kept-alive connection idle `D` after its last answer (uvicorn: 5s), met when the next request arrives on it (0: never)")
	maxModelLen := fs.Int("max-model-len", 0, "the context length in `tokens` the fixture reports (/v1/models, /tokenize) and holds to: a longer prompt is answered 400, as vLLM (0: 32768; a 2 MB prompt needs about 420000)")
	var faultNames listValue
	fs.Var(&faultNames, "fault", "break one protocol rule on purpose, for benchserve conformance to find (repeatable; the faults are listed below)")
	help := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: benchserve fixture [--addr %s] [--model NAME] [--api-key KEY]\n"+
			"                          [--slots N] [--max-model-len N] [--close-kept-alive]\n"+
			"                          [--idle-close D] [--fault NAME]...\n\n"+
			"Serves the embedded deterministic OpenAI-compatible fixture server until\n"+
			"interrupted (Ctrl-C). Point benchserve at it with --url. With --slots N it\n"+
			"behaves like a server of limited capacity: TTFT grows with the load.\n\n"+
			"Flags:\n", defaultAddr)
		printFlags(w, fs)
		faultsHelp(w)
	}
	if code, ok := parseFlags(e, fs, "fixture", help, args); !ok {
		return code
	}
	if *slots < 0 {
		fmt.Fprintf(e.stderr, "benchserve fixture: --slots %d: want 0 (unlimited) or more\n%s\n", *slots, helpPointer("fixture"))
		return ExitUsage
	}
	if *maxModelLen < 0 {
		fmt.Fprintf(e.stderr, "benchserve fixture: --max-model-len %d: want 0 (32768) or more tokens\n%s\n", *maxModelLen, helpPointer("fixture"))
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "benchserve fixture: %s\n%s\n", unexpectedArgs(fs.Args()), helpPointer("fixture"))
		return ExitUsage
	}
	var faults []fixtures.Fault
	for _, name := range faultNames {
		f, err := fixtures.ParseFault(name)
		if err != nil {
			fmt.Fprintf(e.stderr, "benchserve fixture: %s\n", unknownFault(name))
			return ExitUsage
		}
		faults = append(faults, f)
	}
	err := fixtures.ListenAndServe(ctx, *addr, fixtures.Options{Model: *model, APIKey: *apiKey, Slots: *slots, Faults: faults, CloseKeptAlive: *closeKeptAlive, IdleClose: *idleClose, MaxModelLen: *maxModelLen}, func(s *fixtures.Server) {
		fmt.Fprintf(e.stdout, "benchserve fixture: serving model \"%s\" on %s (Ctrl-C to stop)\n", present.Name(*model), s.URL)
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve fixture: %s\n", explain(err))
		return ExitUsage
	}
	fmt.Fprintln(e.stdout, "benchserve fixture: stopped")
	return ExitOK
}

// faultsHelp lists every fault --fault accepts (fixtures.Faults, the
// table fixtures.ParseFault reads), one a line with the rule it breaks:
// first those of a contract of benchserve conformance, then the length and
// cache faults, whose rule is no contract of the suite.
func faultsHelp(w io.Writer) {
	inSuite := map[string]bool{}
	if suite, err := workloads.Conformance(); err == nil {
		for _, c := range suite.Cases {
			inSuite[c.ID] = true
		}
	}
	var contracts, others []fixtures.Fault
	width := 0
	for _, f := range fixtures.Faults() {
		width = max(width, len(f))
		if inSuite[f.Contract()] {
			contracts = append(contracts, f)
		} else {
			others = append(others, f)
		}
	}
	for _, group := range []struct {
		title  string
		faults []fixtures.Fault
	}{
		{"Faults (--fault NAME, repeatable), each breaking one contract of\nbenchserve conformance:", contracts},
		{"Faults of the length and cache rules a generated workload (--dataset-name\nrandom) relies on, no contract of benchserve conformance:", others},
	} {
		if len(group.faults) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", group.title)
		for _, f := range group.faults {
			fmt.Fprintf(w, "  %-*s  %s\n", width, f, f.Contract())
		}
	}
}

// unknownFault says that --fault name names no fault, the closest one
// when one is close, and how to list them (the list itself is long: one
// line per fault in --help).
func unknownFault(name string) string {
	known := make([]string, 0, len(fixtures.Faults()))
	for _, f := range fixtures.Faults() {
		known = append(known, string(f))
	}
	msg := `--fault "` + present.Name(name) + `": no such fault`
	if s := suggest.Closest(strings.TrimSpace(name), known); s != "" {
		msg += "; did you mean --fault " + s + "?"
	}
	return msg + "\nRun 'benchserve fixture --help' for the " + strconv.Itoa(len(known)) + " faults, one per line, and the contract each breaks."
}
