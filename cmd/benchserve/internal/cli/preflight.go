package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/runner"
	"github.com/benchserve/benchserve/serverinfo"
	"github.com/benchserve/benchserve/stats"
	"github.com/benchserve/benchserve/sweep"
	"github.com/benchserve/benchserve/workload"
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

// report prints every problem and returns ExitUsage; the pointer to
// --help only when a flag was misused.
func (p *problems) report(e *env) int {
	for _, s := range append(append([]string{}, p.usage...), p.input...) {
		fmt.Fprintf(e.stderr, "benchserve: %s\n", s)
	}
	if len(p.usage) > 0 {
		fmt.Fprintln(e.stderr, "Run 'benchserve --help' for usage.")
	}
	return ExitUsage
}

// commonChecks checks the flags both modes use: --url is normalized in
// place (serverinfo.NormalizeBaseURL), --slo expressions must parse,
// --request-timeout-s must be a usable timeout (checkSeconds), and
// --output must not name one of the run's input files.
func commonChecks(f *benchFlags, pr *problems) {
	if msg := checkSeconds(f.requestTimeoutS); msg != "" {
		pr.addUsage("--request-timeout-s: %s", msg)
	}
	checkOutputNotInput(f, pr)
	if u, err := serverinfo.NormalizeBaseURL(f.url); err != nil {
		pr.addUsage("--url: %s", strings.TrimPrefix(err.Error(), "serverinfo: "))
	} else {
		f.url = u
	}
	if _, err := stats.ParseThresholds(f.slo...); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			pr.addUsage("--slo: %s", strings.TrimPrefix(line, "load: "))
		}
	}
}

// checkOutputNotInput refuses an --output that is one of the run's
// input files (results.SameFile: same inode, or the same path after
// cleaning and resolving symlinks): the workload in workload mode, the
// prompt-set files, --prompt-file and --system-prompt-file in sweep mode.
// Writing the results there would destroy the input.
func checkOutputNotInput(f *benchFlags, pr *problems) {
	if f.output == "" {
		return
	}
	var inputs [][2]string // flag, path
	if f.workload.set {
		inputs = append(inputs, [2]string{"--workload", f.workload.val})
		if w, err := workload.Load(f.workload.val); err == nil {
			for _, in := range w.InputFiles()[1:] {
				inputs = append(inputs, [2]string{"a request_path of --workload:", in})
			}
		}
	} else {
		for _, ps := range strings.Split(f.prompts, ",") {
			if ps = strings.TrimSpace(ps); ps != "" && !slices.Contains(sweep.BuiltinNames, ps) {
				inputs = append(inputs, [2]string{"--prompts", ps})
			}
		}
		inputs = append(inputs, [2]string{"--prompt-file", f.promptFile}, [2]string{"--system-prompt-file", f.systemPromptFile})
	}
	for _, in := range inputs {
		if results.SameFile(f.output, in[1]) {
			pr.addInput("--output %s is the same file as %s %s: writing the results would destroy it; choose another --output", f.output, in[0], in[1])
		}
	}
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// checkOutput reports why output could not be written in format, before
// anything runs: its directory must exist and take new files (the
// atomic write creates a temporary file there), it must not be a
// directory, and with sqlite an existing non-empty file must be a SQLite
// database that can be opened for writing. "" (stdout) is always fine.
func checkOutput(output, format string) error {
	if output == "" {
		return nil
	}
	path := output
	if format == "sqlite" {
		path = paths.ExpandHome(path) // as results.WriteSQLite does
	}
	// Written through a symlink to its target (results.WriteFileAtomic).
	if target, err := results.ResolveOutput(path); err == nil {
		path = target
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		// A device or FIFO is written through, never replaced.
		if format == "sqlite" {
			return fmt.Errorf("--output %s: not a regular file; a SQLite history must be one", output)
		}
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--output %s: directory %s does not exist", output, dir)
	case err != nil:
		return fmt.Errorf("--output %s: %w", output, err)
	case !st.IsDir():
		return fmt.Errorf("--output %s: %s is not a directory", output, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("--output %s: is a directory", output)
	}
	probe, err := os.CreateTemp(dir, ".benchserve-write-check-*")
	if err != nil {
		return fmt.Errorf("--output %s: directory %s is not writable: %w", output, dir, err)
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	if format == "sqlite" {
		return checkSQLiteFile(output, path)
	}
	return nil
}

// checkSQLiteFile accepts a missing or empty file, or one starting with
// the SQLite header that can be opened for writing.
func checkSQLiteFile(output, path string) error {
	fh, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--output %s: cannot open it to append: %w", output, err)
	}
	defer fh.Close()
	hdr := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(fh, hdr)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil
	}
	if n < len(hdr) || string(hdr) != sqliteHeader {
		return fmt.Errorf("--output %s: the file exists and is not a SQLite database (--format sqlite appends to it); choose another path or format", output)
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

// checkServer probes GET {url}/health. Any HTTP answer means the server is
// reachable. When it is not, it prints why, and when --url was not given
// how to start the embedded fixture, and returns ExitUsage.
func checkServer(ctx context.Context, e *env, f *benchFlags) (int, bool) {
	hc := runner.NewHTTPClient(5*time.Second, 1)
	defer hc.CloseIdleConnections()
	url := strings.TrimRight(f.url, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: --url %q: %v\n", serverinfo.RedactURL(f.url), err)
		return ExitUsage, false
	}
	if f.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+f.apiKey)
	}
	resp, err := hc.Do(req)
	if err == nil {
		resp.Body.Close()
		return ExitOK, true
	}
	fmt.Fprintf(e.stderr, "benchserve: cannot reach a server at %s: %v\n", serverinfo.RedactURL(url), err)
	if !f.given("url") {
		fmt.Fprintf(e.stderr, "No --url was given and nothing answers at the default %s.\n"+
			"To try benchserve without a model server, start the embedded fixture in another terminal:\n"+
			"    benchserve fixture --addr %s\n"+
			"or point --url at your server.\n", defaultURL, defaultAddr)
	}
	return ExitUsage, false
}
