package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/benchserve/benchserve/results"
)

// Run is one input of a report: a workload run (Payload set), a prompt
// sweep (Sweep set, the rows of one sweep run) or a capacity search
// (Capacity set). Label names it in headings and in the comparison table;
// build Runs with FromPayload, FromSweep and FromCapacity.
type Run struct {
	// Label names the run in the report ("smoke ecd7b4f4", a file name).
	Label string
	// Payload is a workload run's results; nil for a sweep.
	Payload *results.Payload
	// Sweep holds a prompt sweep's rows (one per prompt set × concurrency
	// × repetition); nil for a workload run.
	Sweep []results.SweepResult
	// Capacity is a capacity search's result (capacity.json); nil for a
	// workload run or a sweep.
	Capacity *results.Capacity
}

// FromPayload wraps a workload payload (from benchtest.RunWorkload, the
// CLI's --output JSON or the reference's bench-serve) as a Run. An empty
// label becomes "<workload name> <run id>". p is not copied; do not change
// it until the report is written.
func FromPayload(p *results.Payload, label string) Run {
	if label == "" && p != nil {
		label = strings.TrimSpace(p.Workload.Name + " " + p.RunID)
	}
	return Run{Label: label, Payload: p}
}

// FromSweep wraps prompt-sweep rows (results.SweepResult, as written by
// FormatSweepJSON or the bench_serve SQLite table) as a Run. An empty label
// becomes "sweep <run id of the first row>".
func FromSweep(rows []results.SweepResult, label string) Run {
	if label == "" {
		label = "sweep"
		if len(rows) > 0 && rows[0].RunID != "" {
			label += " " + rows[0].RunID
		}
	}
	return Run{Label: label, Sweep: rows}
}

// Outcomes of one request, worst first; the colors in the charts and the
// "outcome" values in the data section.
const (
	outcomeInterrupted = "interrupted"  // in flight when the run was stopped: no measurement, no failure
	outcomeError       = "error"        // the request failed (Record.Error)
	outcomeFail        = "fail"         // a quality check failed
	outcomeTimeout     = "over-timeout" // answered, but over the case's policy timeout
	outcomePass        = "pass"
)

// unmeasured reports whether a request of outcome o has no latency to
// show: it failed on the wire, or the run's stop cut it.
func unmeasured(o string) bool { return o == outcomeError || o == outcomeInterrupted }

// reportData is everything the charts and tables show; it is embedded in
// the HTML as JSON (id "benchserve-data") and is what the snapshot guards.
type reportData struct {
	Generator   string            `json:"generator"`
	Title       string            `json:"title"`
	Runs        []runData         `json:"runs"`
	Comparisons []*comparisonData `json:"comparisons"`
	Figures     []figureData      `json:"figures"`
}

// figureData lists one chart: its element id and what it shows.
type figureData struct {
	ID    string `json:"id"`
	Run   string `json:"run"`
	Kind  string `json:"kind"`
	Title string `json:"title"`
}

type runData struct {
	ID        string           `json:"id"`
	Label     string           `json:"label"`
	Kind      string           `json:"kind"` // "workload", "sweep" or "capacity"
	RunID     string           `json:"run_id"`
	Timestamp string           `json:"timestamp"`
	Workload  string           `json:"workload,omitempty"`
	Model     string           `json:"model"`
	Runtime   results.Runtime  `json:"runtime"`
	Hardware  results.Hardware `json:"hardware"`
	Counts    *countsData      `json:"counts,omitempty"`
	Cases     []caseData       `json:"cases,omitempty"`
	Timeline  []timelineEntry  `json:"timeline,omitempty"`
	Sweep     []sweepPoint     `json:"sweep,omitempty"`
	Capacity  *capacityData    `json:"capacity,omitempty"`
	// Contracts are the protocol contracts of a conformance run, one per
	// record that has one (shown in their own table, not as cases).
	Contracts []contractData `json:"contracts,omitempty"`
	// Schedule is how a load run's requests were sent and whether the
	// client kept up (the payload's schedule), nil for other runs.
	Schedule  *results.Schedule `json:"schedule,omitempty"`
	Notes     []string          `json:"notes,omitempty"`
	payload   *results.Payload  // for the templates, not the JSON
	caseIndex map[string]int    // case id → index in Cases
	sweepRows []results.SweepResult
}

// countsData is the summary header's tally over requests (case ×
// repetition records).
type countsData struct {
	Requests int `json:"requests"`
	Cases    int `json:"cases"`
	// Passed and Failed count requests by their quality checks (as the
	// payload summary does); Errored counts failed requests among them.
	// Interrupted counts the requests the run's stop cut (Ctrl-C, a
	// signal, --max-error-rate): neither passed nor failed, left out of
	// every statistic, as in the payload summary's interrupted_count.
	Passed      int `json:"passed"`
	Failed      int `json:"failed"`
	Errored     int `json:"errored"`
	Interrupted int `json:"interrupted,omitempty"`
	// Policy timeouts: requests whose case set one, and how many ran over
	// (or errored, which the reference counts as over).
	PolicyChecked int `json:"policy_checked"`
	PolicyOver    int `json:"policy_over"`
	// Contracts counts the protocol contracts judged (a conformance
	// result's records, which are no cases), Verdicts them by outcome.
	Contracts int            `json:"contracts,omitempty"`
	Verdicts  []verdictCount `json:"verdicts,omitempty"`
}

// OnlyContracts reports a conformance result: contracts and no cases,
// whose header counts contracts and verdicts instead of cases.
func (c *countsData) OnlyContracts() bool { return c.Cases == 0 && c.Contracts > 0 }

// requestData is one record, reduced to what the report shows.
type requestData struct {
	Repetition int     `json:"repetition"`
	Outcome    string  `json:"outcome"`
	TTFTms     float64 `json:"ttft_ms"`
	// TPOTms and GenTPS are nil (null) when the record's decode span was
	// not observable (results.Metrics.DecodeTiming).
	TPOTms *float64 `json:"tpot_ms"`
	E2ELms float64  `json:"e2e_latency_ms"`
	GenTPS *float64 `json:"gen_tps"`
	Issues []string `json:"issues,omitempty"`
	Error  string   `json:"error,omitempty"`
	// ReasoningChars is the answer's reasoning in characters, beside
	// ContentChars; DecodeTiming why the rates are null (results.Metrics).
	ReasoningChars int    `json:"reasoning_chars,omitempty"`
	ContentChars   int    `json:"-"`
	DecodeTiming   string `json:"decode_timing,omitempty"`
}

// p50s are a case's medians over requests that did not error (nil when
// there is none).
type p50s struct {
	TTFTms *float64 `json:"ttft_ms"`
	E2ELms *float64 `json:"e2e_latency_ms"`
	GenTPS *float64 `json:"gen_tps"`
}

type caseData struct {
	CaseID   string   `json:"case_id"`
	Tags     []string `json:"tags"`
	Passed   bool     `json:"passed"`
	Failures int      `json:"failures"`
	// Interrupted counts the case's requests the run's stop cut (not
	// failures).
	Interrupted int `json:"interrupted,omitempty"`
	// PolicyChecked counts requests with a policy timeout, PolicyOver
	// those that ran over it (or errored).
	PolicyChecked int           `json:"policy_checked"`
	PolicyOver    int           `json:"policy_over"`
	P50           p50s          `json:"p50"`
	Requests      []requestData `json:"requests"`
	// Answer says what the answers were made of when more than content:
	// reasoning beside content, and how many had no timed decode.
	Answer string `json:"answer,omitempty"`
}

// timelineEntry is one request on the run's time axis, in ms since the
// earliest request start. FirstTokenMS is nil when no token arrived.
type timelineEntry struct {
	CaseID       string   `json:"case_id"`
	Repetition   int      `json:"repetition"`
	StartMS      float64  `json:"start_ms"`
	FirstTokenMS *float64 `json:"first_token_ms"`
	EndMS        float64  `json:"end_ms"`
	Outcome      string   `json:"outcome"`
}

// sweepPoint is the mean over repetitions of one prompt set × concurrency.
type sweepPoint struct {
	PromptSet     string  `json:"prompt_set"`
	Concurrency   int     `json:"concurrency"`
	Samples       int     `json:"samples"`
	ThroughputTPS float64 `json:"throughput_tps"`
	RequestsPerS  float64 `json:"requests_per_s"`
	TTFTms        float64 `json:"ttft_ms"`
	E2ELms        float64 `json:"e2e_latency_ms"`
	GenTPS        float64 `json:"gen_tps"`
	Validated     bool    `json:"validated"`
}

// round rounds to n decimals so the data section is readable and stable.
func round(v float64, n int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, float64(n))
	return math.Round(v*p) / p
}

func outcomeOf(r results.Record) string {
	switch {
	case r.Interrupted:
		return outcomeInterrupted
	case r.Error != "":
		return outcomeError
	case !r.Quality.OK:
		return outcomeFail
	case r.Policy.WithinTimeout != nil && !*r.Policy.WithinTimeout:
		return outcomeTimeout
	}
	return outcomePass
}

// answerOf is a case's Answer: "reasoning p50 N chars beside p50 M chars
// of content" when any answer reasoned, and "K of N requests: decode not
// timed (one chunk or a burst)" when rates were null; "" otherwise.
func answerOf(reqs []requestData) string {
	var reasoning, content []float64
	untimed, answered := 0, 0
	for _, q := range reqs {
		if unmeasured(q.Outcome) {
			continue
		}
		answered++
		reasoning, content = append(reasoning, float64(q.ReasoningChars)), append(content, float64(q.ContentChars))
		if q.DecodeTiming != "" {
			untimed++
		}
	}
	var parts []string
	if r := median(reasoning); r != nil && *r > 0 {
		parts = append(parts, fmt.Sprintf("reasoning p50 %.0f chars beside p50 %.0f chars of content", *r, *median(content)))
	}
	if untimed > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d requests: decode not timed (one chunk or a burst)", untimed, answered))
	}
	return strings.Join(parts, "; ")
}

// measured rounds a rate to 3 places; nil for NaN (not measured).
func measured(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	r := round(v, 3)
	return &r
}

func median(vs []float64) *float64 {
	d := results.NewDist(vs)
	if d.Count == 0 {
		return nil
	}
	v := round(d.P50, 3)
	return &v
}

// buildData turns runs into the report's data. Runs get ids run-1, run-2….
func buildData(title string, runs []Run, comparisons bool) (*reportData, []*runData, error) {
	if len(runs) == 0 && !comparisons {
		return nil, nil, fmt.Errorf("report: write: no runs given")
	}
	d := &reportData{Generator: "benchserve report", Title: title, Runs: []runData{}, Comparisons: []*comparisonData{}, Figures: []figureData{}}
	out := make([]*runData, 0, len(runs))
	for i, r := range runs {
		id := fmt.Sprintf("run-%d", i+1)
		var rd *runData
		switch {
		case r.Payload != nil:
			rd = workloadData(id, r)
		case r.Sweep != nil:
			rd = sweepData(id, r)
		case r.Capacity != nil:
			rd = capacityRunData(id, r)
		default:
			return nil, nil, fmt.Errorf("report: write: run %d (%q): neither a payload nor sweep rows nor a capacity result", i+1, r.Label)
		}
		out = append(out, rd)
	}
	for _, rd := range out {
		d.Runs = append(d.Runs, *rd)
	}
	return d, out, nil
}

func workloadData(id string, r Run) *runData {
	p := r.Payload
	rd := &runData{ID: id, Label: r.Label, Kind: "workload", RunID: p.RunID, Timestamp: p.Timestamp,
		Workload: p.Workload.Name, Schedule: p.Schedule, payload: p, caseIndex: map[string]int{}, Cases: []caseData{}}
	c := &countsData{}
	for _, rec := range p.Results {
		if rd.Model == "" {
			rd.Model = cmp.Or(rec.ModelID, rec.Runtime.ModelID)
			rd.Runtime, rd.Hardware = rec.Runtime, rec.Hardware
		}
		if rd.Workload == "" {
			rd.Workload = rec.Workload
		}
		out := outcomeOf(rec)
		c.Requests++
		switch {
		case out == outcomeInterrupted:
			c.Interrupted++
		case rec.Quality.OK:
			c.Passed++
		default:
			c.Failed++
			if out == outcomeError {
				c.Errored++
			}
		}
		over := false
		if rec.Policy.WithinTimeout != nil {
			c.PolicyChecked++
			if !*rec.Policy.WithinTimeout {
				c.PolicyOver++
				over = true
			}
		}
		if rec.Contract != nil {
			rd.Contracts = append(rd.Contracts, newContractData(*rec.Contract))
			continue
		}
		ci, ok := rd.caseIndex[rec.CaseID]
		if !ok {
			ci = len(rd.Cases)
			rd.caseIndex[rec.CaseID] = ci
			tags := rec.Tags
			if tags == nil {
				tags = []string{}
			}
			rd.Cases = append(rd.Cases, caseData{CaseID: rec.CaseID, Tags: tags, Passed: true})
		}
		cs := &rd.Cases[ci]
		if out == outcomeInterrupted {
			cs.Interrupted++
		} else if !rec.Quality.OK {
			cs.Passed = false
			cs.Failures++
		}
		if rec.Policy.WithinTimeout != nil {
			cs.PolicyChecked++
		}
		if over {
			cs.PolicyOver++
		}
		cs.Requests = append(cs.Requests, requestData{
			Repetition: rec.Repetition, Outcome: out,
			TTFTms: round(rec.Metrics.TTFTms, 3), TPOTms: measured(rec.Metrics.TPOTms),
			E2ELms: round(rec.Metrics.E2ELms, 3), GenTPS: measured(rec.Metrics.GenTPS),
			Issues: rec.Quality.Issues, Error: rec.Error,
			ReasoningChars: rec.Quality.ReasoningChars, ContentChars: rec.Quality.ContentChars,
			DecodeTiming: rec.Metrics.DecodeTiming,
		})
	}
	c.Cases = len(rd.Cases)
	c.Contracts, c.Verdicts = len(rd.Contracts), contractVerdicts(rd.Contracts)
	rd.Counts = c
	for i := range rd.Cases {
		cs := &rd.Cases[i]
		var ttft, e2el, tps []float64
		for _, q := range cs.Requests {
			if unmeasured(q.Outcome) {
				continue
			}
			ttft, e2el = append(ttft, q.TTFTms), append(e2el, q.E2ELms)
			if q.GenTPS != nil {
				tps = append(tps, *q.GenTPS)
			}
		}
		cs.P50 = p50s{TTFTms: median(ttft), E2ELms: median(e2el), GenTPS: median(tps)}
		cs.Answer = answerOf(cs.Requests)
	}
	rd.Timeline, rd.Notes = timeline(withoutContracts(p.Results))
	return rd
}

// parseTime reads the payload's ISO timestamps (Python isoformat, with or
// without an offset).
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func timeline(recs []results.Record) ([]timelineEntry, []string) {
	var t0 time.Time
	starts := make([]time.Time, len(recs))
	missing := 0
	for i, r := range recs {
		t, ok := parseTime(r.StartedAt)
		if !ok {
			missing++
			continue
		}
		starts[i] = t
		if t0.IsZero() || t.Before(t0) {
			t0 = t
		}
	}
	var notes []string
	if missing > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d requests have no start time (started_at; SQLite rows do not store it) and are not on the timeline", missing, len(recs)))
	}
	var out []timelineEntry
	for i, r := range recs {
		if starts[i].IsZero() {
			continue
		}
		start := float64(starts[i].Sub(t0).Microseconds()) / 1000
		e := timelineEntry{CaseID: r.CaseID, Repetition: r.Repetition, StartMS: round(start, 3),
			EndMS: round(start+max(r.Metrics.E2ELms, 0), 3), Outcome: outcomeOf(r)}
		if r.Error == "" && r.Metrics.TTFTms > 0 {
			ft := round(start+r.Metrics.TTFTms, 3)
			e.FirstTokenMS = &ft
		}
		out = append(out, e)
	}
	return out, notes
}

func sweepData(id string, r Run) *runData {
	rd := &runData{ID: id, Label: r.Label, Kind: "sweep", sweepRows: r.Sweep, Sweep: []sweepPoint{}}
	type key struct {
		set  string
		conc int
	}
	acc := map[key]*sweepPoint{}
	var order []key
	for _, row := range r.Sweep {
		if rd.RunID == "" {
			rd.RunID, rd.Timestamp, rd.Model = row.RunID, row.Timestamp, row.ModelID
			rd.Runtime = results.Runtime{ModelID: row.ModelID, ModelType: row.ModelType, EngineType: row.EngineType,
				MTPEnabled: row.MTPEnabled, SpecPrefill: row.SpecPrefill, KVQuant: row.KVQuant, CacheType: row.CacheType,
				MetalActiveGB: row.MetalActiveGB, MetalPeakGB: row.MetalPeakGB, MetalCacheGB: row.MetalCacheGB}
			rd.Hardware = results.Hardware{Chip: row.Chip, GPUCores: row.GPUCores, MemoryGB: row.MemoryGB,
				BandwidthGBs: row.BandwidthGBs, OSVersion: row.OSVersion}
		}
		k := key{row.PromptSet, row.Concurrency}
		pt, ok := acc[k]
		if !ok {
			pt = &sweepPoint{PromptSet: row.PromptSet, Concurrency: row.Concurrency, Validated: true}
			acc[k] = pt
			order = append(order, k)
		}
		pt.Samples++
		pt.ThroughputTPS += row.ThroughputTPS
		pt.RequestsPerS += row.RequestsPerS
		pt.TTFTms += row.TTFTms
		pt.E2ELms += row.E2ELms
		pt.GenTPS += row.GenTPS
		pt.Validated = pt.Validated && row.Validated
	}
	for _, k := range order {
		pt := acc[k]
		n := float64(pt.Samples)
		pt.ThroughputTPS = round(pt.ThroughputTPS/n, 3)
		pt.RequestsPerS = round(pt.RequestsPerS/n, 3)
		pt.TTFTms = round(pt.TTFTms/n, 3)
		pt.E2ELms = round(pt.E2ELms/n, 3)
		pt.GenTPS = round(pt.GenTPS/n, 3)
		rd.Sweep = append(rd.Sweep, *pt)
	}
	// Prompt sets in first-seen order, concurrency ascending within each.
	setOrder := map[string]int{}
	for _, k := range order {
		if _, ok := setOrder[k.set]; !ok {
			setOrder[k.set] = len(setOrder)
		}
	}
	slices.SortStableFunc(rd.Sweep, func(a, b sweepPoint) int {
		return cmp.Or(cmp.Compare(setOrder[a.PromptSet], setOrder[b.PromptSet]), cmp.Compare(a.Concurrency, b.Concurrency))
	})
	return rd
}
