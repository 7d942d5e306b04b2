package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/compare/legend"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/results"
)

// The report's comparison sections present the comparisons the caller
// computed (Options.Comparisons: benchserve report and benchserve compare
// compute them with the statistics of benchserve compare); the page
// decides no verdict itself. Each is shown with the runs of its two sides
// overlaid, found among the page's runs by their labels.

// comparisonData is one comparison in the data block: the
// results.Comparison as benchserve compare --format json writes it, the
// page's runs of each side and the samples behind its overlay charts.
type comparisonData struct {
	ID string `json:"id"`
	*results.Comparison
	// BaseRuns and CandidateRuns are the ids ("run-1") of the page's runs
	// on each side, in the comparison's order; a label without a run in
	// the page is left out.
	BaseRuns      []string `json:"base_runs"`
	CandidateRuns []string `json:"candidate_runs"`
	// CDFs are the samples of the per-case overlay charts, one per case
	// and metric that either side measured.
	CDFs []cdfData `json:"cdfs,omitempty"`
	// Worse, Better and TooFew count the rows by verdict.
	Worse  int `json:"worse"`
	Better int `json:"better"`
	TooFew int `json:"too_few"`
	// Unsampled counts the rows neither side had a sample for (ITL of
	// answers without chunk gaps): kept in Changes, left out of the table.
	Unsampled int `json:"unsampled"`

	base, cand []*runData
	rows       []changeRow // run-wide (Case "")
	groups     []*caseGroup
	figures    []figure // not a case's (capacity)
}

// caseGroup is one case's rows and overlay chart, folded under a summary
// line; open when a row is significant.
type caseGroup struct {
	ID, Case string
	Rows     []changeRow
	Figure   *figure
	Summary  string
	Open     bool
}

// cdfData is one metric of one case on both sides: the samples sorted
// ascending (errored requests and untimed values left out), drawn as two
// empirical CDFs in the chart Figure.
type cdfData struct {
	Figure string `json:"figure"`
	Case   string `json:"case"`
	// Metric is "ttft_ms", "tpot_ms" or "e2e_latency_ms".
	Metric    string    `json:"metric"`
	Base      []float64 `json:"base"`
	Candidate []float64 `json:"candidate"`
}

// changeRow is a results.Change as the table shows it.
type changeRow struct {
	Case, Metric, Base, Candidate, Change, Test, Verdict string
	// Class is the verdict's CSS class: better, worse, same or few.
	Class string
}

// compareData pairs each comparison with the page's runs of its sides:
// every label of a side takes the first run of that label not taken
// yet (by either side), else the first of that label, so one file
// compared with itself still gets a run a side.
func compareData(cmps []*results.Comparison, runs []*runData) ([]*comparisonData, error) {
	out := make([]*comparisonData, 0, len(cmps))
	for i, c := range cmps {
		if c == nil {
			return nil, fmt.Errorf("report: write: comparison %d: nil", i+1)
		}
		cd := &comparisonData{ID: fmt.Sprintf("cmp-%d", i+1), Comparison: c, BaseRuns: []string{}, CandidateRuns: []string{}}
		taken := map[*runData]bool{}
		pick := func(label string) *runData {
			var first *runData
			for _, rd := range runs {
				if rd.Label != label {
					continue
				}
				if !taken[rd] {
					taken[rd] = true
					return rd
				}
				if first == nil {
					first = rd
				}
			}
			return first
		}
		for _, l := range c.Base {
			if rd := pick(l); rd != nil {
				cd.base, cd.BaseRuns = append(cd.base, rd), append(cd.BaseRuns, rd.ID)
			}
		}
		for _, l := range c.Candidate {
			if rd := pick(l); rd != nil {
				cd.cand, cd.CandidateRuns = append(cd.cand, rd), append(cd.CandidateRuns, rd.ID)
			}
		}
		for _, ch := range c.Changes {
			if ch.BaseN == 0 && ch.CandidateN == 0 {
				cd.Unsampled++ // in the data block, not in the table
				continue
			}
			row := changeRow{Case: ch.Case, Metric: ch.Metric, Base: valueText(ch.Base, ch.Unit), Candidate: valueText(ch.Candidate, ch.Unit),
				Change: changeText(ch), Test: ch.Test, Verdict: ch.Verdict}
			switch ch.Verdict {
			case "better":
				row.Class = "better"
				cd.Better++
			case "worse":
				row.Class = "worse"
				cd.Worse++
			case "~":
				row.Class = "same"
			default:
				row.Class = "few"
				cd.TooFew++
			}
			if ch.P != nil {
				row.Test += " · p=" + strconv.FormatFloat(*ch.P, 'g', 2, 64)
			}
			if row.Case == "" {
				row.Case = "(all cases)"
				cd.rows = append(cd.rows, row)
				continue
			}
			g := cd.group(ch.Case)
			g.Rows = append(g.Rows, row)
			g.Open = g.Open || row.Class == "worse" || row.Class == "better"
		}
		if c.Kind == "workload" {
			cd.CDFs = cdfsOf(cd)
		}
		for _, g := range cd.groups {
			g.Summary = verdictCounts(g.Rows)
		}
		out = append(out, cd)
	}
	return out, nil
}

// cdfMetrics are the overlay charts' metrics: key in the data block,
// chart title and axis label.
var cdfMetrics = []struct{ key, title, unit string }{
	{"ttft_ms", "TTFT", "TTFT (ms)"},
	{"tpot_ms", "TPOT", "TPOT (ms)"},
	{"e2e_latency_ms", "E2EL", "E2EL (ms)"},
}

// cdfsOf gathers per case (the base's order, then the candidate's new
// ones) and metric both sides' samples; a figure per case.
func cdfsOf(cd *comparisonData) []cdfData {
	var ids []string
	for _, side := range [][]*runData{cd.base, cd.cand} {
		for _, rd := range side {
			for _, cs := range rd.Cases {
				if !slices.Contains(ids, cs.CaseID) {
					ids = append(ids, cs.CaseID)
				}
			}
		}
	}
	var out []cdfData
	for i, id := range ids {
		fig := fmt.Sprintf("%s-case-%d", cd.ID, i+1)
		for _, m := range cdfMetrics {
			b, c := samplesOf(cd.base, id, m.key), samplesOf(cd.cand, id, m.key)
			if len(b) == 0 && len(c) == 0 {
				continue
			}
			out = append(out, cdfData{Figure: fig, Case: id, Metric: m.key, Base: b, Candidate: c})
		}
	}
	return out
}

// samplesOf are one metric's values of a case over a side's runs,
// sorted; errored requests and untimed (null) values are left out.
func samplesOf(side []*runData, caseID, metric string) []float64 {
	out := []float64{}
	for _, rd := range side {
		i, ok := rd.caseIndex[caseID]
		if !ok {
			continue
		}
		for _, q := range rd.Cases[i].Requests {
			if unmeasured(q.Outcome) {
				continue
			}
			var v float64
			switch metric {
			case "ttft_ms":
				v = q.TTFTms
			case "tpot_ms":
				v = orNaN(q.TPOTms)
			default:
				v = q.E2ELms
			}
			if !math.IsNaN(v) {
				out = append(out, v)
			}
		}
	}
	slices.Sort(out)
	return out
}

// valueText is a value in its unit ("137.5 ms", "12.5%", "86.9"), "–"
// for none.
func valueText(v *float64, unit string) string {
	switch {
	case v == nil:
		return "–"
	case unit == "ratio":
		return strconv.FormatFloat(*v*100, 'f', 1, 64) + "%"
	case unit == "ms":
		return formatNum(*v) + " ms"
	case unit == "":
		return formatNum(*v)
	}
	return formatNum(*v) + " " + unit
}

func signedText(v *float64, unit string) string {
	s := valueText(v, unit)
	if v != nil && *v >= 0 {
		s = "+" + s
	}
	return s
}

// changeText is a row's change, relative change and interval:
// "+50.0 ms (+36.4%) [+12.0 ms, +88.0 ms]", "–" without an estimate.
func changeText(ch results.Change) string {
	if ch.Delta == nil {
		return "–"
	}
	s := signedText(ch.Delta, ch.Unit)
	if ch.Relative != nil && ch.Unit != "ratio" {
		s += fmt.Sprintf(" (%+.1f%%)", *ch.Relative*100)
	}
	if ch.Low != nil && ch.High != nil {
		unit := "" // the interval's unit is the change's, said once
		if ch.Unit == "ratio" {
			unit = ch.Unit
		}
		return s + " [" + signedText(ch.Low, unit) + ", " + signedText(ch.High, unit) + "]"
	}
	return s + " [unbounded]"
}

// LegendTitle and Legend say what the change column holds for the kinds
// of rows the comparison has (legend.Lines: a median's is the
// Hodges-Lehmann shift, which can read against the medians beside it).
func (cd *comparisonData) LegendTitle() string { return legend.Title }

// Legend is the legend's lines, one per kind of row present.
func (cd *comparisonData) Legend() []string { return legend.Lines(cd.Changes) }

// Headline is the comparison's one-line verdict, shown in the page's
// header and above its table.
func (cd *comparisonData) Headline() string {
	if !cd.Regressed && len(cd.GateUndecided) > 0 {
		return "UNDECIDED: " + plural(len(cd.GateUndecided), "--fail-on gate", "--fail-on gates") + " could not be decided"
	}
	if !cd.Regressed {
		s := "no regression"
		if cd.Better > 0 {
			s += fmt.Sprintf("; %s better", plural(cd.Better, "row", "rows"))
		}
		return s
	}
	var parts []string
	if n := len(cd.Regressions); n > 0 {
		parts = append(parts, plural(n, "pass→fail regression", "pass→fail regressions"))
	}
	if n := len(cd.GateFailures); n > 0 {
		parts = append(parts, plural(n, "failed gate", "failed gates"))
	}
	if cd.Worse > 0 {
		parts = append(parts, plural(cd.Worse, "row", "rows")+" significantly worse")
	}
	return "REGRESSION: " + strings.Join(parts, ", ")
}

// Lists are the comparison's sentences by title, the empty ones left out.
func (cd *comparisonData) Lists() []titledList {
	var out []titledList
	for _, l := range []titledList{
		{"Regressions (whatever the numbers)", cd.Regressions},
		{"Failed gates", cd.GateFailures},
		{"Undecided gates", cd.GateUndecided},
		{"Contract changes", cd.ContractChanges},
		{"Changed greedy answers", cd.AnswerChanges},
		{"Accepted differences", cd.Allowed},
	} {
		if len(l.Items) > 0 {
			out = append(out, l)
		}
	}
	return out
}

type titledList struct {
	Title string
	Items []string
}

// Rows are the run-wide rows, in the comparison's order.
func (cd *comparisonData) Rows() []changeRow { return cd.rows }

// Groups are the cases' rows and charts, in the comparison's order.
func (cd *comparisonData) Groups() []*caseGroup { return cd.groups }

// Figures are the overlay charts of no one case (the capacity chart).
func (cd *comparisonData) Figures() []figure { return cd.figures }

// group is the case's group, added at the end when new.
func (cd *comparisonData) group(caseID string) *caseGroup {
	for _, g := range cd.groups {
		if g.Case == caseID {
			return g
		}
	}
	g := &caseGroup{ID: fmt.Sprintf("%s-c%d", cd.ID, len(cd.groups)+1), Case: caseID}
	cd.groups = append(cd.groups, g)
	return g
}

// verdictCounts sums rows up by verdict: "2 worse, 1 better, 5 ~".
func verdictCounts(rows []changeRow) string {
	n := map[string]int{}
	for _, r := range rows {
		n[r.Verdict]++
	}
	var parts []string
	for _, v := range []string{"worse", "better", "~", "too few samples"} {
		if n[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	if len(parts) == 0 {
		return "no rows"
	}
	return strings.Join(parts, ", ")
}

// comparisonFigures draws cd's overlay charts: a CDF chart per case of a
// workload comparison, the capacity chart of a capacity comparison.
func comparisonFigures(cd *comparisonData) ([]figure, error) {
	var out []figure
	for start := 0; start < len(cd.CDFs); {
		end := start
		for end < len(cd.CDFs) && cd.CDFs[end].Figure == cd.CDFs[start].Figure {
			end++
		}
		c := cd.CDFs[start]
		svg, err := cdfChart(c.Case, cd.CDFs[start:end])
		if err != nil {
			return nil, err
		}
		f := figure{ID: c.Figure, Title: "Case " + present.Shorten(c.Case, present.NameLimit),
			Caption: "Empirical CDFs of TTFT, TPOT and E2EL: the fraction of the case's requests at or below a value, base and candidate (errored requests left out). A curve to the right is slower.",
			SVG:     template.HTML(svg), Keys: sideKeys()}
		out = append(out, f)
		cd.group(c.Case).Figure = &f
		start = end
	}
	if cd.Kind == "capacity" {
		svg, err := capacityCompareChart(cd)
		if err != nil {
			return nil, err
		}
		if svg != "" {
			f := figure{ID: cd.ID + "-capacity", Title: "Capacity",
				Caption: "Left: each search's capacity interval (bar), its capacity (square) and its probes (green: passed, red: failed) at their load. Right: goodput against the load. The verdict is the table's.",
				SVG:     template.HTML(svg), Keys: sideKeys()}
			out = append(out, f)
			cd.figures = append(cd.figures, f)
		}
	}
	return out, nil
}

// uncompared notes, for a page given no comparisons, each workload that
// has several runs in it.
func uncompared(runs []*runData) []string {
	count := map[string]int{}
	var order []string
	for _, rd := range runs {
		if rd.Kind != "workload" {
			continue
		}
		if count[rd.Workload] == 0 {
			order = append(order, rd.Workload)
		}
		count[rd.Workload]++
	}
	var out []string
	for _, w := range order {
		if n := count[w]; n > 1 {
			out = append(out, fmt.Sprintf("%d runs of workload %q are shown side by side, not compared: benchserve report and benchserve compare --format html compare them with the statistics of benchserve compare.", n, w))
		}
	}
	return out
}
