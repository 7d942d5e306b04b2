package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/suggest"
)

// helpCols is the width help text is folded to (present.Wrap); no help
// line is wider than maxHelpCols.
const (
	helpCols    = 80
	maxHelpCols = 100
)

// parseFlags parses args with fs for the command cmd ("" for bench-serve,
// else the words after "benchserve": "capacity", "conformance matrix").
// With -h or --help it writes help to stdout and returns ExitOK, false;
// for a flag mistake it writes to stderr the mistake in --name form, a
// "did you mean --x?" when a flag of fs is close (suggest.Closest), and
// where the help is, and returns ExitUsage, false. It returns 0, true
// when args parsed. fs's own output and Usage are not used.
func parseFlags(e *env, fs *flag.FlagSet, cmd string, help func(io.Writer), args []string) (int, bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		help(e.stdout)
		return ExitOK, false
	}
	fmt.Fprintf(e.stderr, "%s: %s\n", commandPrefix(cmd), flagMistake(fs, err))
	fmt.Fprintln(e.stderr, helpPointer(cmd))
	return ExitUsage, false
}

// commandPrefix is how the lines of cmd start: "benchserve capacity".
func commandPrefix(cmd string) string {
	if cmd == "" {
		return "benchserve"
	}
	return "benchserve " + cmd
}

// helpPointer is the line that says where cmd's help is.
func helpPointer(cmd string) string {
	return fmt.Sprintf("Run '%s --help' for usage.", commandPrefix(cmd))
}

// flagMistake rewrites an error of the flag package for the user:
// "--name" as the flags are written in the help, and the closest known
// flag for one that is not defined.
func flagMistake(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		out := "unknown flag --" + present.Name(name)
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		if hint, ok := vllmFlags[name]; ok {
			return out + "; " + hint
		}
		if s := suggest.Closest(name, known); s != "" {
			out += "; did you mean --" + s + "?"
		}
		return out
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return "--" + strings.TrimLeft(name, "-") + " needs a value"
	}
	// "invalid value "x" for flag -n: …", "invalid boolean value "x" for -n: …"
	for _, lead := range []string{" for flag -", " for -"} {
		if i := strings.Index(msg, lead); i >= 0 {
			return present.Message(msg[:i] + " for --" + msg[i+len(lead):])
		}
	}
	return present.Message(msg)
}

// printFlags lists fs's flags with "--" names, each flag's description
// folded to helpCols under it, its default added.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	const indent = "        "
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if typ != "" {
			line += " " + typ
		}
		fmt.Fprintln(w, line)
		usage = strings.Join(strings.Fields(usage), " ")
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" && !strings.Contains(usage, "(default") {
			usage += fmt.Sprintf(" (default: %s)", f.DefValue)
		}
		fmt.Fprintln(w, present.Wrap(indent+usage, helpCols, indent))
	})
}

// unexpectedArgs is the message for arguments a command takes none of.
func unexpectedArgs(args []string) string {
	return "unexpected arguments: " + present.Message(strings.Join(args, " "))
}

// vllmFlags are vllm bench serve's flags that benchserve does not take,
// with what does their job here, so a user coming from vLLM is not left
// with "unknown flag" alone (a vLLM user's try).
var vllmFlags = map[string]string{
	"base-url":           "vLLM's --base-url is --url here (http://host:port, without /v1)",
	"host":               "give the server as --url http://host:port",
	"port":               "give the server as --url http://host:port",
	"backend":            "benchserve speaks the OpenAI API; --endpoint picks chat, completions, responses or embeddings",
	"tokenizer":          "benchserve counts tokens on the server (its /tokenize, else usage.prompt_tokens): no tokenizer to load",
	"percentile-metrics": "every run records TTFT, TPOT, ITL and E2EL with p50, p95 and p99 (the payload's summary); gate any percentile with --slo 'ttft_p99_ms <= 500'",
	"metric-percentiles": "every run records p50, p95 and p99 of TTFT, TPOT, ITL and E2EL (the payload's summary); gate any percentile with --slo 'ttft_p99_ms <= 500'",
	"save-detailed":      "the payload always keeps every request's record (results[]); --save-result writes it",
}
