package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/benchserve/benchserve/internal/conformance"
	"github.com/benchserve/benchserve/internal/present"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

const conformanceSynopsis = "conformance --url URL [--strict] [--workload FILE] [--case-tag TAG] [--output FILE]"

// runConformance is `benchserve conformance`: it checks the protocol
// contracts of the builtin suite (workloads/conformance.json) or of
// --workload on the server at --url, prints one line per contract
// (verdict, level, name, evidence; for a failure the rule it breaks,
// what was sent and what came back) and writes the results payload, one
// record per contract, to --output. It exits ExitOK when every MUST holds
// (and every SHOULD with --strict), ExitFailed when one fails, ExitUsage
// for bad flags, a bad workload or a server that cannot be reached.
func runConformance(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 && args[0] == "matrix" {
		return runConformanceMatrix(e, args[1:])
	}
	fs := flag.NewFlagSet("benchserve conformance", flag.ContinueOnError)
	url := fs.String("url", "", "the server's base URL (required), e.g. http://127.0.0.1:11434")
	model := fs.String("model", "", "model to request (default: the first one /v1/models lists)")
	apiKey := fs.String("api-key", "", "Bearer token sent on every request (default: $BENCHSERVE_API_KEY)")
	output := fs.String("output", "", "write the results payload here, one record per contract; the extension picks the format (.json, .csv, .db, .html, …)")
	strict := fs.Bool("strict", false, "a SHOULD contract that fails fails the run (default: a warning)")
	wl := fs.String("workload", "", "a suite file of your own, e.g. a copy of workloads/conformance.json with cases added (default: the builtin suite)")
	var tags listValue
	fs.Var(&tags, "case-tag", "check only the contracts with this tag (stream, usage, tools, errors, …; repeatable or comma-separated)")
	timeoutS := fs.Float64("request-timeout-s", defaultRequestTimeoutS, "HTTP transport timeout of one request in `seconds`; 0 disables (each request of a contract is also cut at 120 s, and after 2 contracts in a row without any answer the rest are not checked)")
	help := func(w io.Writer) {
		fmt.Fprint(w, "Usage:\n  benchserve "+conformanceSynopsis+"\n"+
			"  benchserve "+matrixSynopsis+"\n\n"+
			"Checks that the server keeps the OpenAI Chat Completions protocol: stream framing,\n"+
			"usage, limits, tools, structured output, errors, models, reasoning, cancellation\n"+
			"(docs/streams.md, Conformance). Each contract is MUST (fails the run), SHOULD\n"+
			"(a warning; fails with --strict) or MAY (recorded). Exit status: 0 when every\n"+
			"MUST holds, 1 when one fails (a server that goes away mid-run fails the contract\n"+
			"it was on; the rest are skipped, one line says so), 2 for usage errors or a\n"+
			"server that cannot be reached.\n\n")
		printFlags(w, fs)
	}
	if code, ok := parseFlags(e, fs, "conformance", help, args); !ok {
		return code
	}
	var pr []string
	flagMistakes := false
	if fs.NArg() > 0 {
		pr, flagMistakes = append(pr, unexpectedArgs(fs.Args())), true
	}
	if *url == "" {
		pr, flagMistakes = append(pr, "--url is required: the server to check, e.g. --url http://127.0.0.1:11434 (benchserve fixture serves a well-behaved one)"), true
	}
	if msg := checkSeconds(*timeoutS); msg != "" {
		pr, flagMistakes = append(pr, "--request-timeout-s: "+msg), true
	}
	if *apiKey == "" && e.getenv != nil {
		*apiKey = e.getenv("BENCHSERVE_API_KEY")
	}
	var w *workloads.Workload
	var err error
	if *wl != "" {
		w, err = workloads.Load(*wl)
	} else {
		w, err = workloads.Conformance()
	}
	if err != nil {
		pr = append(pr, strings.Split(err.Error(), "\n")...)
	} else {
		contracts := 0
		for _, c := range w.Cases {
			if c.Protocol != nil {
				contracts++
			}
		}
		if contracts == 0 {
			pr = append(pr, fmt.Sprintf("%s has no protocol contract (no case with a \"protocol\" object)", w.Path))
		}
	}
	var sel []string
	for _, t := range tags {
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				sel = append(sel, s)
			}
		}
	}
	if w != nil && len(sel) > 0 && len(w.Select(sel)) == 0 {
		pr = append(pr, fmt.Sprintf("--case-tag %s: no contract of %s has any of these tags", strings.Join(sel, ","), w.Path))
	}
	if err := checkOutput(*output, resultio.FormatForPath(*output)); err != nil {
		pr = append(pr, err.Error())
	}
	if w != nil && *output != "" {
		for _, in := range w.InputFiles() {
			if resultio.SameFile(*output, in) {
				pr = append(pr, fmt.Sprintf("--output %s is the suite file %s: writing the results would destroy it", *output, in))
			}
		}
	}
	if len(pr) > 0 {
		for _, p := range pr {
			fmt.Fprintf(e.stderr, "benchserve conformance: %s\n", present.Message(p))
		}
		if flagMistakes {
			fmt.Fprintln(e.stderr, helpPointer("conformance"))
		}
		return ExitUsage
	}
	e = e.redacting(*url, *apiKey)
	for _, warning := range w.Warnings {
		fmt.Fprintf(e.stderr, "benchserve conformance: warning: %s\n", present.Message(warning))
	}
	if *strict {
		runner.StrictContracts(w)
	}
	cfg := runner.Config{URL: *url, Model: *model, APIKey: *apiKey, RequestTimeout: secondsTimeout(*timeoutS),
		Warn: func(msg string) { fmt.Fprintf(e.stderr, "benchserve conformance: warning: %s\n", present.Message(msg)) }}
	r, err := runner.New(ctx, cfg)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve conformance: %s\n", connectError(*url, err))
		return ExitUsage
	}
	defer r.Close()
	fmt.Fprintf(e.stdout, "benchserve conformance: %s, model \"%s\", %s\n", present.Path(serverinfo.RedactURL(r.URL())), present.Name(r.Model()), present.Path(w.Path))
	sess, err := r.Start(ctx, w, runner.RunOptions{Tags: sel, Journal: resultio.JournalFor(*output),
		Progress: func(out runner.Outcome, _, _ int) {
			if c := out.Record.Contract; c != nil {
				// Printed as each contract ends: fixed columns, no
				// tabwriter; the evidence folded under the line.
				line := fmt.Sprintf("  %-4s  %-6s  %s  %s", verdictWord(c), present.Name(c.Level), present.Name(c.Name), present.Evidence(userText(contractLine(out.Record))))
				fmt.Fprintln(e.stdout, present.Wrap(line, maxHelpCols, evidenceIndent))
			}
		}})
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve conformance: %s\n", explain(err))
		return ExitUsage
	}
	runErr := sess.RunAll(ctx, nil)
	p := sess.Payload()
	fmt.Fprintln(e.stdout, conformanceSummary(p))
	if n, why := notChecked(p); n > 0 {
		fmt.Fprintf(e.stderr, "benchserve conformance: the server went away: %d contract(s) not checked (%s)\n", n, present.Message(why))
	}
	code := ExitOK
	for _, rec := range p.Results {
		if !rec.OK {
			code = ExitFailed
		}
	}
	if *output != "" {
		kept, werr, keepErr := resultio.WriteFileOrKeep(p, *output)
		if jerr := sess.FinishJournal(werr == nil); jerr != nil {
			fmt.Fprintf(e.stderr, "benchserve conformance: journal: %s\n", explain(jerr))
		}
		if werr != nil {
			journal, _ := sess.Journal()
			fmt.Fprintf(e.stderr, "benchserve conformance: writing the results failed: %s; every finished contract is in %s (benchserve recover)\n", explain(werr), journal)
			if keepErr == nil {
				fmt.Fprintf(e.stderr, "benchserve conformance: the results were kept as JSON in %s\n", kept)
			}
			return ExitFailed
		}
		fmt.Fprintf(e.stderr, "Conformance results written to %s\n", *output)
	} else {
		// No results file: the lines above are the results, so a run that
		// ended removes its journal; one cut short keeps it and says where.
		journal, _ := sess.Journal()
		if jerr := sess.FinishJournal(runErr == nil); jerr != nil {
			fmt.Fprintf(e.stderr, "benchserve conformance: journal: %s\n", explain(jerr))
		}
		if runErr != nil && journal != "" {
			fmt.Fprintf(e.stderr, "benchserve conformance: every finished contract is in %s (benchserve recover %s --output FILE)\n", journal, journal)
		}
	}
	if runErr != nil {
		fmt.Fprintf(e.stderr, "benchserve conformance: %s\n", explain(runErr))
		return ExitFailed
	}
	return code
}

// notChecked counts the contracts of p not checked because the server
// went away (conformance.GoneEvidence) and gives the first one's reason.
func notChecked(p *results.Payload) (n int, why string) {
	for _, rec := range p.Results {
		if c := rec.Contract; c != nil && strings.HasPrefix(c.Evidence, conformance.GoneEvidence) {
			if n == 0 {
				why = strings.TrimPrefix(strings.TrimPrefix(c.Evidence, conformance.GoneEvidence), ": ")
			}
			n++
		}
	}
	return n, why
}

// evidenceIndent starts the lines a contract's evidence is folded onto.
const evidenceIndent = "        "

// verdictWord is a contract's outcome as the line shows it: PASS, FAIL
// (it fails the run), WARN (a SHOULD that broke), INFO (a MAY that
// broke), SKIP (it did not apply), UNSUPPORTED (the server refused the
// feature with a 4xx).
func verdictWord(c *results.Contract) string { return strings.ToUpper(c.Outcome()) }

// contractLine is the evidence of a contract, or for one that failed the
// whole message (rule, sent, got).
func contractLine(rec results.Record) string {
	if len(rec.Quality.Issues) > 0 {
		return strings.TrimPrefix(rec.Quality.Issues[0], rec.CaseID+" ("+rec.Contract.Level+"): ")
	}
	if len(rec.Quality.Notes) > 0 {
		return strings.TrimPrefix(rec.Quality.Notes[0], rec.CaseID+" ("+rec.Contract.Level+"): ")
	}
	return rec.Contract.Evidence
}

// conformanceSummary counts the verdicts: "32 contracts: 28 pass, 1 fail,
// 1 warn, 1 skip, 1 unsupported".
func conformanceSummary(p *results.Payload) string {
	counts := map[string]int{}
	n := 0
	for _, rec := range p.Results {
		if rec.Contract == nil {
			continue
		}
		n++
		counts[strings.ToLower(verdictWord(rec.Contract))]++
	}
	parts := []string{}
	for _, k := range []string{"pass", "fail", "not checked", "warn", "info", "skip", "unsupported"} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	verdict := "every MUST holds"
	for _, rec := range p.Results {
		if !rec.OK {
			// A failed MUST, or one not checked because the server went away.
			verdict = "FAILED"
		}
	}
	return fmt.Sprintf("benchserve conformance: %d contracts: %s — %s", n, strings.Join(parts, ", "), verdict)
}

const matrixSynopsis = "conformance matrix [--output FILE] LABEL=RESULTS.json..."

// runConformanceMatrix is `benchserve conformance matrix LABEL=FILE...`:
// the contracts of several conformance payloads as one Markdown table
// (results.ContractMatrix), a column per payload, to stdout or --output.
func runConformanceMatrix(e *env, args []string) int {
	fs := flag.NewFlagSet("benchserve conformance matrix", flag.ContinueOnError)
	output := fs.String("output", "", "write the Markdown table here instead of stdout")
	help := func(w io.Writer) {
		fmt.Fprint(w, "Usage: benchserve "+matrixSynopsis+"\n\n"+
			"Renders the contracts of conformance results payloads (benchserve conformance\n"+
			"--output FILE.json) as a Markdown compatibility matrix: a row per contract, a\n"+
			"column per payload, headed by its LABEL (e.g. \"Ollama v0.17.4=ollama-0.17.4.json\").\n\n")
		printFlags(w, fs)
	}
	if code, ok := parseFlags(e, fs, "conformance matrix", help, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(e.stderr, "benchserve conformance matrix: want at least one LABEL=RESULTS.json (benchserve conformance matrix fixture=fixture.json \"Ollama v0.6.5=ollama.json\")")
		fmt.Fprintln(e.stderr, helpPointer("conformance matrix"))
		return ExitUsage
	}
	var labels []string
	var ps []*results.Payload
	for _, a := range fs.Args() {
		label, path, ok := strings.Cut(a, "=")
		if !ok || label == "" || path == "" {
			fmt.Fprintf(e.stderr, "benchserve conformance matrix: \"%s\": want LABEL=RESULTS.json\n", present.Message(a))
			return ExitUsage
		}
		if slices.Contains(labels, label) {
			// Two columns of one name cannot be told apart.
			fmt.Fprintf(e.stderr, "benchserve conformance matrix: label \"%s\" is given twice: each column needs its own\n", present.Message(label))
			return ExitUsage
		}
		expandHome(&path)
		p, err := readConformancePayload(path)
		if err != nil {
			fmt.Fprintf(e.stderr, "benchserve conformance matrix: %s\n", explain(err))
			return ExitUsage
		}
		labels, ps = append(labels, label), append(ps, p)
	}
	table, err := results.ContractMatrix(labels, ps)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve conformance matrix: %s\n", explain(err))
		return ExitUsage
	}
	if *output == "" {
		fmt.Fprint(e.stdout, table)
		return ExitOK
	}
	if err := resultio.WriteFileAtomic(*output, []byte(table), 0o644); err != nil {
		fmt.Fprintf(e.stderr, "benchserve conformance matrix: %s\n", explain(err))
		return ExitFailed
	}
	fmt.Fprintf(e.stderr, "Compatibility matrix written to %s\n", *output)
	return ExitOK
}

// readConformancePayload reads a JSON results payload for the matrix.
func readConformancePayload(path string) (*results.Payload, error) {
	data, err := resultio.ReadFileLimit(path, resultio.MaxPayloadBytes)
	if err != nil {
		return nil, err
	}
	var p results.Payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: not a JSON results payload (benchserve conformance --output FILE.json writes one): %w", path, err)
	}
	if p.Results == nil {
		return nil, fmt.Errorf("%s: not a results payload (no results)", path)
	}
	return &p, nil
}
