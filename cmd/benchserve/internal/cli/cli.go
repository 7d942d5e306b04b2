package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"

	"syscall"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/suggest"
)

// Exit statuses of Main.
const (
	// ExitOK: every case passed its checks (every sweep row validated).
	ExitOK = 0
	// ExitFailed: the run completed but a case failed its checks or a
	// sweep row is not validated (or the run was interrupted).
	ExitFailed = 1
	// ExitUsage: bad flags or inputs (workload, prompt sets, …), or no
	// server to run against; nothing was measured.
	ExitUsage = 2
)

// Main runs benchserve with args (without the program name) and returns
// the exit status (ExitOK, ExitFailed or ExitUsage). Progress and
// diagnostics go to stderr, results and --help to stdout (results to
// --output when it is given); every line is escaped and cut for a person
// (package present) before it is written.
// SIGINT and SIGTERM cancel the run: what was measured is still written.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv})
}

// run dispatches to a subcommand; a first argument that names none (or a
// flag) selects the default command.
func run(ctx context.Context, args []string, e *env) int {
	e = e.presenting()
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if c := lookup(args[0]); c != nil {
			return c.run(ctx, e, args[1:])
		}
		if args[0] == "help" {
			if len(args) > 1 && lookup(args[1]) != nil {
				return lookup(args[1]).run(ctx, e, []string{"--help"})
			}
			return runBench(ctx, e, []string{"--help"})
		}
		msg := `benchserve: unknown command "` + present.Name(args[0]) + `"`
		if s := suggest.Closest(args[0], commandList()); s != "" {
			msg += "; did you mean " + s + "?"
		}
		fmt.Fprintf(e.stderr, "%s (commands: %s)\n%s\n", msg, commandNames(), helpPointer(""))
		return ExitUsage
	}
	return lookup(defaultCommand).run(ctx, e, args)
}

func commandNames() string { return strings.Join(commandList(), ", ") }

func commandList() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// Version is the benchserve version: the main module's version from the
// build information ("(devel)" for a source build), unless set at link
// time with -ldflags "-X github.com/benchserve/benchserve/cmd/benchserve/internal/cli.Version=v1.2.3".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func runVersion(_ context.Context, e *env, args []string) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(e.stdout, "Usage: benchserve version\n\nPrints the benchserve version and the Go version it was built with.")
		return ExitOK
	}
	if len(args) > 0 {
		fmt.Fprintln(e.stderr, "benchserve: version takes no arguments")
		fmt.Fprintln(e.stderr, helpPointer(""))
		return ExitUsage
	}
	goVersion := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
	}
	fmt.Fprintf(e.stdout, "benchserve %s (%s)\n", version(), goVersion)
	return ExitOK
}
