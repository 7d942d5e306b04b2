package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/compare/legend"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

//go:embed report.html.tmpl
var pageSource string

//go:embed report.css
var pageCSS string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"num":     formatNum,
	"load":    fmtLoad,
	"errpct":  func(v float64) string { return strconv.FormatFloat(math.Round(v*1e4)/100, 'f', -1, 64) + "%" },
	"nump":    formatNumPtr,
	"join":    strings.Join,
	"plural":  plural,
	"outcome": func(s string) string { return strings.ReplaceAll(s, "-", " ") },
	"colors":  outcomeKey,
	// The change column's header, as compare's table has it.
	"shift": func() string { return legend.Header },
	// A server's strings, cut to their kind's limit where they are shown
	// (the data block keeps them whole); render escapes what they hold.
	"name":     func(s string) string { return present.Shorten(s, present.NameLimit) },
	"message":  func(s string) string { return present.Shorten(s, present.MessageLimit) },
	"evidence": func(s string) string { return present.Shorten(s, present.EvidenceLimit) },
}).Parse(pageSource))

// Options tune a report; the zero value is the default.
type Options struct {
	// Title is the page title (default "benchserve report").
	Title string
	// Comparisons are shown at the top of the page, in order, each with
	// its verdict in the page's header: the table of rows (per case and
	// metric the two values, the change with its interval, the test and
	// the verdict better, worse, ~ or too few samples), the regressions,
	// failed gates, contract changes and changed greedy answers, and the
	// two sides overlaid: per case the empirical CDFs of TTFT, TPOT and
	// E2EL of the base's and the candidate's requests, for capacity
	// searches the two capacity intervals with their probes and goodput
	// curves. A side's runs are the runs given whose Label is one of the
	// comparison's Base (Candidate) names; the page computes no verdict
	// itself. benchserve report fills it (every later run of a workload
	// with the first), and benchserve compare --format html. Without it,
	// runs of one workload are shown side by side, not compared.
	Comparisons []*results.Comparison
}

// Write renders runs as one self-contained HTML page to w: per run a
// summary header, the per-case table with the failing checks' messages,
// TTFT/TPOT/E2EL distributions per case, a request timeline and, for
// sweeps, throughput and TTFT against concurrency; for capacity searches
// the capacity found, its status and reason, the SLOs, a chart of p95
// TTFT, p95 TPOT and goodput against the probed load (pass/fail per
// probe, the SLO limits, the capacity) and the table of probes in the
// order run. Write compares nothing: several runs of one workload are
// shown side by side with a note saying so; WriteWith shows the
// comparisons of Options.Comparisons on top. Charts are inline SVG drawn
// by gonum.org/v1/plot, the numbers behind them are in a <script
// type="application/json" id="benchserve-data"> block, every string from
// the inputs is escaped (html/template), and nothing is loaded from the
// network. Control characters, bidirectional controls (U+202E) and other
// invisible format characters from the inputs are shown as \uNNNN
// escapes, in text, attributes and charts (the data block's JSON decodes
// them back to the same strings). The output is deterministic for given
// runs. Errors: no runs, a Run with no payload, sweep rows or capacity
// result, a chart that cannot be drawn, or w failing.
func Write(w io.Writer, runs ...Run) error {
	return WriteWith(w, Options{}, runs...)
}

// WriteWith is Write with Options. With Options.Comparisons it also
// renders a page of comparisons alone (no runs: no overlay charts); a nil
// comparison is an error naming its position.
func WriteWith(w io.Writer, opts Options, runs ...Run) error {
	b, err := render(opts, runs)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("report: write: %w", err)
	}
	return nil
}

func init() {
	resultio.RegisterWriter(resultio.FormatHTML, func(p *results.Payload, path string) error {
		return WriteFile(path, FromPayload(p, ""))
	})
}

// WriteFile renders runs as Write does and replaces path with the page
// atomically (a temporary file renamed over it, mode 0644): readers see
// the old file or the new one, never half a report. Errors are Write's or the
// "results: write <path>: …" of the atomic write.
func WriteFile(path string, runs ...Run) error {
	return WriteFileWith(path, Options{}, runs...)
}

// WriteFileWith is WriteFile with Options.
func WriteFileWith(path string, opts Options, runs ...Run) error {
	b, err := render(opts, runs)
	if err != nil {
		return err
	}
	return resultio.WriteFileAtomic(path, b, 0o644)
}

// figure is one chart in the page.
type figure struct {
	ID      string
	Title   string
	Caption string
	SVG     template.HTML
	Key     bool // show the outcome color key under it
	// Keys, when set, is the color key under it instead.
	Keys []keyEntry
}

type runView struct {
	*runData
	Distributions []figure
	Timeline      *figure
	SweepFigures  []figure
	CapacityChart *figure
	Passed        bool
}

type pageView struct {
	Title       string
	CSS         template.CSS
	Runs        []runView
	Comparisons []*comparisonData
	// Uncompared notes the workloads with several runs and no comparison.
	Uncompared []string
	Data       template.JS
}

func render(opts Options, runs []Run) ([]byte, error) {
	title := opts.Title
	if title == "" {
		title = "benchserve report"
	}
	data, rds, err := buildData(title, runs, len(opts.Comparisons) > 0)
	if err != nil {
		return nil, err
	}
	if data.Comparisons, err = compareData(opts.Comparisons, rds); err != nil {
		return nil, err
	}
	view := pageView{Title: title, CSS: template.CSS(pageCSS), Comparisons: data.Comparisons}
	if len(opts.Comparisons) == 0 {
		view.Uncompared = uncompared(rds)
	}
	for _, cd := range data.Comparisons {
		figs, err := comparisonFigures(cd)
		if err != nil {
			return nil, err
		}
		for _, f := range figs {
			data.Figures = append(data.Figures, figureData{ID: f.ID, Run: cd.ID, Kind: "comparison", Title: f.Title})
		}
	}
	for _, rd := range rds {
		rv := runView{runData: rd}
		switch rd.Kind {
		case "workload":
			rv.Passed = rd.Counts.Failed == 0 && rd.Counts.PolicyOver == 0 && !rv.clientInvalid()
			if len(rd.Cases) > 0 {
				for _, m := range []struct{ key, title, unit, caption string }{
					{"ttft", "Time to first token", "TTFT (ms)", "Time from sending the request to the first token of content, reasoning or a tool call."},
					{"tpot", "Time per output token", "TPOT (ms)", "Mean time between output tokens after the first."},
					{"e2el", "End-to-end latency", "E2EL (ms)", "Time from sending the request to the last byte of the answer."},
				} {
					svg, err := distributionChart(rd, m.key, m.title, m.unit)
					if err != nil {
						return nil, err
					}
					f := figure{ID: rd.ID + "-" + m.key, Title: m.title, Caption: m.caption + " Box: quartiles and median; points: requests.", SVG: template.HTML(svg), Key: true}
					rv.Distributions = append(rv.Distributions, f)
					data.Figures = append(data.Figures, figureData{ID: f.ID, Run: rd.ID, Kind: "distribution", Title: f.Title})
				}
			}
			if len(rd.Timeline) > 0 {
				svg, err := timelineChart(rd)
				if err != nil {
					return nil, err
				}
				rv.Timeline = &figure{ID: rd.ID + "-timeline", Title: "Request timeline",
					Caption: "Each row is a request: grey from its start to the first token, then colored by outcome until its end.", SVG: template.HTML(svg), Key: true}
				data.Figures = append(data.Figures, figureData{ID: rv.Timeline.ID, Run: rd.ID, Kind: "timeline", Title: rv.Timeline.Title})
			}
		case "sweep":
			rv.Passed = true
			for _, pt := range rd.Sweep {
				rv.Passed = rv.Passed && pt.Validated
			}
			if len(rd.Sweep) > 0 {
				for _, m := range []struct{ key, title, unit, caption string }{
					{"throughput", "Throughput vs concurrency", "output tokens/s (all requests)", "Aggregate output tokens per second; one line per prompt set, mean over repetitions."},
					{"ttft", "TTFT vs concurrency", "TTFT (ms)", "Mean time to first token; one line per prompt set, mean over repetitions."},
				} {
					svg, err := sweepChart(rd, m.key, m.title, m.unit)
					if err != nil {
						return nil, err
					}
					f := figure{ID: rd.ID + "-" + m.key, Title: m.title, Caption: m.caption, SVG: template.HTML(svg)}
					rv.SweepFigures = append(rv.SweepFigures, f)
					data.Figures = append(data.Figures, figureData{ID: f.ID, Run: rd.ID, Kind: "sweep", Title: f.Title})
				}
			}
		case "capacity":
			cd := rd.Capacity
			rv.Passed = cd.passed()
			svg, err := capacityChart(cd)
			if err != nil {
				return nil, err
			}
			if svg != "" {
				f := &figure{ID: rd.ID + "-capacity", Title: "Capacity search",
					Caption: "p95 TTFT, p95 TPOT and goodput of every probe against its load (" + cd.Unit + "). Dashed red: the SLO limit on that metric; blue: the capacity found. Null statistics (no request succeeded) are not drawn.",
					SVG:     template.HTML(svg),
					Keys:    []keyEntry{{Name: "probe passed", Color: outcomeColors[outcomePass]}, {Name: "probe failed", Color: outcomeColors[outcomeFail]}}}
				rv.CapacityChart = f
				data.Figures = append(data.Figures, figureData{ID: f.ID, Run: rd.ID, Kind: "capacity", Title: f.Title})
			}
		}
		view.Runs = append(view.Runs, rv)
	}
	js, err := json.MarshalIndent(data, "", " ") // escapes <, > and & as \u003c…
	if err != nil {
		return nil, fmt.Errorf("report: write: data: %w", err)
	}
	view.Data = template.JS(js)
	var buf bytes.Buffer
	if err := page.Execute(&buf, view); err != nil {
		return nil, fmt.Errorf("report: write: %w", err)
	}
	// html/template escapes HTML, not what a browser draws invisibly or
	// reversed (U+202E turns a line around) nor control characters: the
	// whole page, text, attributes, inline SVG and the data block alike,
	// shows each as a \u escape, which the JSON block decodes back to the
	// same rune.
	return []byte(present.EscapeUnicode(buf.String())), nil
}

// formatNum prints a measurement with about three significant digits.
func formatNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a < 10:
		return fmt.Sprintf("%.2f", v)
	case a < 1000:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func formatNumPtr(v *float64) string {
	if v == nil {
		return "–"
	}
	return formatNum(*v)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

type keyEntry struct{ Name, Color string }

// outcomeKey is the color key under outcome-colored charts, best first.
func outcomeKey() []keyEntry {
	out := make([]keyEntry, 0, 4)
	for _, o := range []string{outcomePass, outcomeTimeout, outcomeFail, outcomeError} {
		out = append(out, keyEntry{Name: o, Color: outcomeColors[o]})
	}
	return out
}

// BadgeText is the word in the run's heading: PASS or FAIL, INVALID for
// a load run the client could not keep up with, or for a
// capacity search its status ("FOUND", "MAX REACHED", "TIME CAP", …).
func (rv runView) BadgeText() string {
	if rv.Capacity != nil {
		if rv.Capacity.Status == "" {
			return "NO STATUS"
		}
		return strings.ToUpper(strings.ReplaceAll(rv.Capacity.Status, "_", " "))
	}
	if rv.clientInvalid() {
		return "INVALID"
	}
	if rv.Passed && rv.interrupted() {
		return "INTERRUPTED"
	}
	if rv.Passed {
		return "PASS"
	}
	return "FAIL"
}

// interrupted reports whether the run was stopped with requests in
// flight (a workload run's Counts.Interrupted): nothing failed, but the
// run did not finish.
func (rv runView) interrupted() bool { return rv.Counts != nil && rv.Counts.Interrupted > 0 }

// BadgeClass colors the badge: "pass", "fail", or "warn" for a capacity
// search stopped by its time cap (its capacity is a lower bound) and an
// interrupted run in which nothing failed.
func (rv runView) BadgeClass() string {
	switch {
	case rv.Passed && rv.interrupted():
		return "warn"
	case rv.Passed:
		return "pass"
	case rv.Capacity != nil && rv.Capacity.Status == "time_cap":
		return "warn"
	}
	return "fail"
}

// RuntimeText is the summary header's server runtime line:
// "vllm-mlx · batched engine · prefix_cache · MTP", "–" when unknown.
func (rv runView) RuntimeText() string {
	r := rv.Runtime
	var parts []string
	add := func(ok bool, s string) {
		if ok {
			parts = append(parts, s)
		}
	}
	add(r.Server != "", r.Server)
	add(r.EngineType != "", r.EngineType+" engine")
	add(r.CacheType != "", r.CacheType)
	add(r.KVQuant != "", "kv "+r.KVQuant)
	add(r.MTPEnabled, "MTP")
	add(r.SpecPrefill, "spec-prefill")
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, " · ")
}

// HardwareText is the summary header's hardware line:
// "Apple M3 Max · 40 GPU cores · 128 GB · macOS-15.3-arm64", "–" when unknown.
func (rv runView) HardwareText() string {
	h := rv.Hardware
	var parts []string
	if h.Chip != "" {
		parts = append(parts, h.Chip)
	}
	if h.GPUCores > 0 {
		parts = append(parts, fmt.Sprintf("%d GPU cores", h.GPUCores))
	}
	if h.MemoryGB > 0 {
		parts = append(parts, fmt.Sprintf("%.3g GB", h.MemoryGB))
	}
	if h.OSVersion != "" {
		parts = append(parts, h.OSVersion)
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, " · ")
}
