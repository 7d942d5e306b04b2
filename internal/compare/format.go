package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/benchserve/benchserve/internal/compare/legend"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/results"
)

// Formats are the --format values of benchserve compare.
var Formats = []string{"table", "markdown", "json", "benchstat", "html"}

// Format writes cmp as format ("table", "markdown" or "json"); the
// benchstat format is written from the runs (Benchstat), the html page
// by the door with report.WriteWith (the report package's charts stay
// out of the binaries that compare in go test).
func Format(cmp *results.Comparison, format string) ([]byte, error) {
	switch format {
	case "table", "":
		return Table(cmp), nil
	case "markdown":
		return Markdown(cmp), nil
	case "json":
		b, err := json.MarshalIndent(cmp, "", "  ")
		return append(b, '\n'), err
	}
	return nil, fmt.Errorf("compare: unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// num formats a value in its unit, "—" for none.
func num(v *float64, unit string) string {
	if v == nil {
		return "—"
	}
	switch unit {
	case "ratio":
		return strconv.FormatFloat(*v*100, 'f', 1, 64) + "%"
	case "ms":
		return strconv.FormatFloat(*v, 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

func signed(v *float64, unit string) string {
	s := num(v, unit)
	if v != nil && *v >= 0 {
		s = "+" + s
	}
	return s
}

// changeText is a row's change as "+4.0ms (+20.0%) [+3.1ms, +4.9ms]".
func changeText(ch results.Change) string {
	if ch.Delta == nil {
		return "—"
	}
	s := signed(ch.Delta, ch.Unit)
	if ch.Relative != nil && ch.Unit != "ratio" {
		s += fmt.Sprintf(" (%+.1f%%)", *ch.Relative*100)
	}
	if ch.Low != nil && ch.High != nil {
		s += " [" + signed(ch.Low, ch.Unit) + ", " + signed(ch.High, ch.Unit) + "]"
	} else {
		s += " [unbounded]"
	}
	return s
}

func pText(ch results.Change) string {
	switch {
	case ch.Verdict == VerdictTooFew:
		return ""
	case ch.P != nil:
		return "p=" + strconv.FormatFloat(*ch.P, 'g', 2, 64)
	case ch.Verdict != VerdictTooFew:
		return "ci"
	}
	return ""
}

func caseText(id string) string {
	if id == "" {
		return "(all)"
	}
	return present.Line(present.Name(id))
}

func header(cmp *results.Comparison) string {
	names := func(l []string) string {
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = present.Line(present.Path(s))
		}
		return strings.Join(out, " ")
	}
	tested := 0
	for _, ch := range cmp.Changes {
		if ch.Delta != nil {
			tested++
		}
	}
	return fmt.Sprintf("base: %s\ncandidate: %s\nalpha %g over the %d rows with samples to test, of %d (familywise); intervals at 1 - alpha, percentiles' at their corrected level",
		names(cmp.Base), names(cmp.Candidate), cmp.Alpha, tested, len(cmp.Changes))
}

// maxTooFewShown is how many untested rows (too few samples to test at
// all: no shift to show) the table and markdown list; beyond it they are
// counted in one line instead (a dataset run of 40 one-request cases gave
// 560 such rows, burying the run-wide ones that decide).
const maxTooFewShown = 10

// shownChanges are the rows the table and markdown list, and how many
// untested rows they leave out (all of those, when there are more than
// maxTooFewShown).
func shownChanges(cmp *results.Comparison) ([]results.Change, int) {
	untested := func(ch results.Change) bool { return ch.Verdict == VerdictTooFew && ch.Delta == nil }
	tooFew := 0
	for _, ch := range cmp.Changes {
		if untested(ch) {
			tooFew++
		}
	}
	if tooFew <= maxTooFewShown {
		return cmp.Changes, 0
	}
	shown := make([]results.Change, 0, len(cmp.Changes)-tooFew)
	for _, ch := range cmp.Changes {
		if !untested(ch) {
			shown = append(shown, ch)
		}
	}
	return shown, tooFew
}

// hiddenLine says how many too-few-samples rows were left out.
func hiddenLine(n int) string {
	return fmt.Sprintf("(%d rows with too few samples to test are not shown; --format json lists every row)", n)
}

// legendLines say what the change column holds for the kinds of rows cmp
// has (legend.Title, then "  p50, gen_tps, rates: the Hodges-Lehmann
// shift ..."), none without rows.
func legendLines(cmp *results.Comparison) []string {
	lines := legend.Lines(cmp.Changes)
	if len(lines) == 0 {
		return nil
	}
	out := []string{legend.Title}
	for _, l := range lines {
		out = append(out, "  "+l)
	}
	return out
}

func verdictLine(cmp *results.Comparison) string {
	switch {
	case cmp.Regressed:
		return "verdict: REGRESSION"
	case len(cmp.GateUndecided) > 0:
		return "verdict: UNDECIDED (a --fail-on gate could not be decided)"
	}
	return "verdict: no regression"
}

// Table is the comparison for a terminal, benchstat-like: one row per
// case and metric, "~" where the change is not significant, then the
// regressions, changed greedy answers and failed gates.
func Table(cmp *results.Comparison) []byte {
	var buf bytes.Buffer
	buf.WriteString(header(cmp) + "\n")
	for _, l := range legendLines(cmp) {
		buf.WriteString(l + "\n")
	}
	buf.WriteString("\n")
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tmetric\tbase\tcandidate\t"+legend.Header+"\ttest\tverdict")
	shown, hidden := shownChanges(cmp)
	for _, ch := range shown {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", caseText(ch.Case), ch.Metric,
			num(ch.Base, ch.Unit), num(ch.Candidate, ch.Unit), changeText(ch), pText(ch), ch.Verdict)
	}
	tw.Flush()
	if hidden > 0 {
		buf.WriteString(hiddenLine(hidden) + "\n")
	}
	lists(&buf, cmp, "")
	buf.WriteString(verdictLine(cmp) + "\n")
	return buf.Bytes()
}

func lists(buf *bytes.Buffer, cmp *results.Comparison, bullet string) {
	for _, l := range []struct {
		title string
		items []string
	}{{"allowed differences", cmp.Allowed}, {"regressions (whatever the numbers)", cmp.Regressions},
		{"failed gates", cmp.GateFailures}, {"undecided gates", cmp.GateUndecided}, {"contract changes", cmp.ContractChanges},
		{"changed greedy answers", cmp.AnswerChanges}} {
		if len(l.items) == 0 {
			continue
		}
		fmt.Fprintf(buf, "\n%s:\n", l.title)
		for _, it := range l.items {
			fmt.Fprintf(buf, "%s  %s\n", bullet, present.Line(it))
		}
	}
	buf.WriteString("\n")
}

// Markdown is the comparison for a pull-request comment: the same table
// with the significant rows in bold.
func Markdown(cmp *results.Comparison) []byte {
	var buf bytes.Buffer
	esc := func(s string) string { return strings.ReplaceAll(present.Line(s), "|", `\|`) }
	fmt.Fprintf(&buf, "**%s**\n\n", verdictLine(cmp))
	for _, l := range strings.Split(header(cmp), "\n") {
		fmt.Fprintf(&buf, "%s  \n", esc(l))
	}
	for i, l := range legendLines(cmp) {
		if i > 0 {
			l = "-" + l[1:] // "  p50, ...": a list item
		}
		fmt.Fprintf(&buf, "%s\n", esc(l))
	}
	buf.WriteString("\n| case | metric | base | candidate | " + legend.Header + " | test | verdict |\n|---|---|---:|---:|---|---|---|\n")
	shown, hidden := shownChanges(cmp)
	for _, ch := range shown {
		v := ch.Verdict
		if v == VerdictWorse || v == VerdictBetter {
			v = "**" + v + "**"
		}
		fmt.Fprintf(&buf, "| %s | %s | %s | %s | %s | %s | %s |\n", esc(caseText(ch.Case)), ch.Metric,
			num(ch.Base, ch.Unit), num(ch.Candidate, ch.Unit), changeText(ch), pText(ch), v)
	}
	if hidden > 0 {
		buf.WriteString("\n" + hiddenLine(hidden) + "\n")
	}
	lists(&buf, cmp, "-")
	return bytes.ReplaceAll(buf.Bytes(), []byte("\n-  "), []byte("\n- "))
}

// Benchstat writes the runs' requests in the Go benchmark format
// (golang.org/x/perf/benchfmt) that benchstat reads: a "side: base" or
// "side: candidate" configuration line, then one line per request,
// "Benchmark<workload>/case=<id> 1 <ttft> ttft-ns/op <tpot> tpot-ns/op
// <e2el> e2el-ns/op <gen_tps> gen-tok/s", untimed values left out.
// `benchstat -col side FILE` then compares the sides.
func Benchstat(base, candidate []Run) []byte {
	var buf bytes.Buffer
	for _, side := range []struct {
		name string
		runs []Run
	}{{"base", base}, {"candidate", candidate}} {
		fmt.Fprintf(&buf, "side: %s\n", side.name)
		for _, r := range side.runs {
			for _, rec := range r.Payload.Results {
				if rec.Interrupted || rec.Error != "" {
					continue
				}
				fmt.Fprintf(&buf, "Benchmark%s/case=%s 1", upperFirst(benchName(r.Payload.Workload.Name)), benchName(rec.CaseID))
				m := rec.Metrics
				for _, v := range []struct {
					v    float64
					unit string
					ns   bool
				}{{m.TTFTms, "ttft-ns/op", true}, {m.TPOTms, "tpot-ns/op", true}, {m.E2ELms, "e2el-ns/op", true}, {m.GenTPS, "gen-tok/s", false}} {
					if math.IsNaN(v.v) {
						continue
					}
					x := v.v
					if v.ns {
						x *= 1e6
					}
					fmt.Fprintf(&buf, " %s %s", strconv.FormatFloat(x, 'f', -1, 64), v.unit)
				}
				buf.WriteString("\n")
			}
		}
	}
	return buf.Bytes()
}

// benchName makes s a benchmark name element: no spaces, slashes or
// control characters.
func benchName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r <= ' ' || r == 0x7f || r == '/':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// upperFirst upper-cases s's first letter, as a top-level benchmark
// name has it.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
