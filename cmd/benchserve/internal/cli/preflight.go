package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/internal/sweep"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// problems are what stops a run before it starts: flag mistakes (usage,
// where --help helps) and input problems (a workload or prompt file that
// does not load, an --output that cannot be written).
type problems struct {
	usage, input []string
}

func (p *problems) addUsage(format string, args ...any) {
	p.usage = append(p.usage, fmt.Sprintf(format, args...))
}

func (p *problems) addInput(format string, args ...any) {
	p.input = append(p.input, fmt.Sprintf(format, args...))
}

func (p *problems) empty() bool { return len(p.usage) == 0 && len(p.input) == 0 }

// report prints every problem of the command cmd ("" for bench-serve;
// each line escaped and cut, a problem of several lines line by line) and
// returns ExitUsage; the pointer to cmd's --help only when a flag was
// misused.
func (p *problems) report(e *env, cmd string) int {
	for _, s := range append(append([]string{}, p.usage...), p.input...) {
		for _, line := range strings.Split(userText(s), "\n") {
			fmt.Fprintf(e.stderr, "%s: %s\n", commandPrefix(cmd), present.Message(line))
		}
	}
	if len(p.usage) > 0 {
		fmt.Fprintln(e.stderr, helpPointer(cmd))
	}
	return ExitUsage
}

// commonChecks checks the flags both modes use: --url is normalized in
// place (serverinfo.NormalizeBaseURL), --slo expressions must parse,
// --request-timeout-s must be a usable timeout (checkSeconds), and
// --output must not name one of the run's input files.
// w is the loaded workload in workload mode (nil when it did not load, and
// in sweep mode).
func commonChecks(f *benchFlags, pr *problems, w *workloads.Workload) {
	if msg := checkSeconds(f.requestTimeoutS); msg != "" {
		pr.addUsage("--request-timeout-s: %s", msg)
	}
	checkOutputNotInput(f, pr, w)
	if u, err := serverinfo.NormalizeBaseURL(f.url); err != nil {
		pr.addUsage("--url: %s", strings.TrimPrefix(err.Error(), "serverinfo: "))
	} else {
		f.url = u
	}
	var err error
	if f.thresholds, err = results.ParseThresholds(f.slo...); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			pr.addUsage("--slo: %s", strings.TrimPrefix(line, "load: "))
		}
	}
}

// runInput is one file a run reads: the flag that names it and its path.
type runInput struct{ flag, path string }

// runInputs lists the files a run reads, by flag: the workload and the
// request_path files it names (w, once loaded), else the prompt sets
// given as paths (a builtin name read from --prompts-dir counts as
// DIR/<name>.json), the prompt and system prompt files, and a
// file-based dataset's --dataset-path. Empty paths are left out.
func runInputs(workload string, w *workloads.Workload, prompts, promptsDir, promptFile, systemPromptFile, datasetPath string) []runInput {
	var inputs []runInput
	add := func(flag, path string) {
		if path != "" {
			inputs = append(inputs, runInput{flag, path})
		}
	}
	if workload != "" {
		add("--workload", workload)
		if w != nil {
			for _, in := range w.InputFiles()[1:] {
				add("a request_path of --workload:", in)
			}
		}
	}
	for _, ps := range strings.Split(prompts, ",") {
		switch ps = strings.TrimSpace(ps); {
		case ps == "" || workload != "":
		case !slices.Contains(sweep.BuiltinNames, ps):
			add("--prompts", ps)
		case promptsDir != "":
			add("--prompts "+ps+" from --prompts-dir", filepath.Join(promptsDir, ps+".json"))
		}
	}
	add("--prompt-file", promptFile)
	add("--system-prompt-file", systemPromptFile)
	add("--dataset-path", datasetPath)
	return inputs
}

// refuseOutputOverInput files an input problem for an --output that is
// one of the run's input files (resultio.SameFile: through links and
// relative paths alike), before anything runs: writing the results
// would destroy the input.
func refuseOutputOverInput(output string, inputs []runInput, pr *problems) {
	if output == "" {
		return
	}
	for _, in := range inputs {
		if resultio.SameFile(output, in.path) {
			pr.addInput("--output %s is the same file as %s %s: writing the results would destroy it; choose another --output", output, in.flag, in.path)
		}
	}
}

// checkOutputNotInput refuses a bench-serve --output that is one of the
// run's input files (runInputs); w is the loaded workload (nil when
// none loaded).
func checkOutputNotInput(f *benchFlags, pr *problems, w *workloads.Workload) {
	workload := ""
	if f.workload.set {
		workload = f.workload.val
	}
	refuseOutputOverInput(f.output, runInputs(workload, w, f.prompts, f.promptsDir, f.promptFile, f.systemPromptFile, f.dataset.path), pr)
}

// checkOutput is the one output pre-check (resultio.CheckOutput) with
// the flag named: why output could not be written in format, before
// anything runs. "" (stdout) is always fine.
func checkOutput(output, format string) error {
	if output == "" {
		return nil
	}
	if err := resultio.CheckOutput(output, format); err != nil {
		return fmt.Errorf("--output %w", err)
	}
	return nil
}

// addSweepProblems files each problem of a sweep.Validate error (the
// leaves of its joined errors): those marked with sweep.ErrInputFile as
// input problems, the rest (values given in flags) as usage problems.
func addSweepProblems(pr *problems, err error) {
	add := func(to *[]string, err error) {
		*to = append(*to, strings.Split(err.Error(), "\n")...)
	}
	var walk func(error)
	walk = func(err error) {
		multi, ok := err.(interface{ Unwrap() []error })
		if !ok {
			add(&pr.usage, err)
			return
		}
		kids := multi.Unwrap()
		if slices.Contains(kids, sweep.ErrInputFile) {
			add(&pr.input, err)
			return
		}
		for _, k := range kids {
			if k != sweep.ErrInput {
				walk(k)
			}
		}
	}
	walk(err)
}

// connect is the one server probe of a run (runner.New: the runtime and
// model detection). When nothing answers it prints why, and when --url was
// not given (urlGiven false) how to start the embedded fixture; it
// returns nil and the exit status (ExitUsage) when it cannot connect.
func connect(ctx context.Context, e *env, cfg runner.Config, urlGiven bool) (*runner.Runner, int) {
	r, err := runner.New(ctx, cfg)
	if err == nil {
		return r, ExitOK
	}
	fmt.Fprintf(e.stderr, "benchserve: %s\n", connectError(cfg.URL, err))
	if errors.Is(err, runner.ErrUnreachable) && !urlGiven {
		fmt.Fprintf(e.stderr, "No --url was given and nothing answers at the default %s.\n"+
			"To try benchserve without a model server, start the embedded fixture in another terminal:\n"+
			"    benchserve fixture --addr %s\n"+
			"or point --url at your server.\n", defaultURL, defaultAddr)
	}
	return nil, ExitUsage
}
