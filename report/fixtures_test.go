package report_test

import (
	"fmt"
	"time"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

// Fixed payloads for the report tests: a workload run (baseline), a
// second run of the same workload with changes (candidate), and a prompt
// sweep. Everything is literal, so the report is the same on every run.

var t0 = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)

type req struct {
	caseID  string
	rep     int
	startMS float64
	ttft    float64
	tpot    float64
	e2el    float64
	tps     float64
	issues  []string
	err     string
	timeout *float64 // policy timeout (ms)
}

func ptr[T any](v T) *T { return &v }

func record(runID, model string, rt results.Runtime, q req) results.Record {
	tags := map[string][]string{
		"greet":         {"smoke"},
		"explain-tides": {"smoke", "knowledge"},
		"json-object":   {"quality"},
		"long-summary":  {"quality", "slow"},
	}[q.caseID]
	r := results.Record{
		RunID: runID, Timestamp: resultio.ISOTimestamp(t0), Workload: "promotion",
		StartedAt: resultio.ISOTimestamp(t0.Add(time.Duration(q.startMS * float64(time.Millisecond)))),
		CaseID:    q.caseID, Repetition: q.rep, Tags: tags, ModelID: model, Runtime: rt,
		Hardware: results.Hardware{Chip: "Apple M3 Max", GPUCores: 40, MemoryGB: 128, BandwidthGBs: 400, OSVersion: "macOS-15.3-arm64"},
		Request:  results.RequestInfo{MaxTokens: 256, ExtraBody: map[string]any{}, MessageCount: 2},
		Metrics: results.Metrics{TTFTms: q.ttft, TPOTms: q.tpot, E2ELms: q.e2el, GenTPS: q.tps,
			PromptTokens: 24, CompletionTokens: 120},
		Quality: results.Quality{OK: len(q.issues) == 0 && q.err == "", Issues: q.issues, FinishReason: ptr("stop"), ContentChars: 480},
		Error:   q.err,
	}
	if r.Quality.Issues == nil {
		r.Quality.Issues = []string{}
	}
	if q.err != "" && len(q.issues) == 0 {
		r.Quality.Issues = []string{"request error: " + q.err}
	}
	if q.timeout != nil {
		r.Policy.TimeoutMS = q.timeout
		within := q.err == "" && q.e2el <= *q.timeout
		r.Policy.WithinTimeout = &within
	}
	r.OK = r.Quality.OK
	return r
}

func payload(runID, model string, rt results.Runtime, reqs []req) *results.Payload {
	recs := make([]results.Record, 0, len(reqs))
	for _, q := range reqs {
		recs = append(recs, record(runID, model, rt, q))
	}
	return resultio.BuildPayload(resultio.PayloadInput{
		RunID: runID, Timestamp: resultio.ISOTimestamp(t0),
		Workload: results.WorkloadInfo{Name: "promotion", Path: "workloads/examples/promotion.json", Repetitions: 2,
			Digest: "sha256:0f1e2d3c4b5a"},
		CacheMode: "preserve", Records: recs,
	})
}

// baselinePayload: 4 cases × 2 repetitions; explain-tides fails a check
// once, long-summary runs over its policy timeout once.
func baselinePayload() *results.Payload {
	rt := results.Runtime{ModelID: "qwen3-8b-4bit", ModelType: "llm", EngineType: "batched", CacheType: "prefix_cache", Server: "vllm-mlx"}
	to := ptr(3000.0)
	return payload("base0001", "qwen3-8b-4bit", rt, []req{
		{caseID: "greet", rep: 0, startMS: 0, ttft: 120, tpot: 11.5, e2el: 900, tps: 86.9},
		{caseID: "explain-tides", rep: 0, startMS: 920, ttft: 150, tpot: 12.0, e2el: 1600, tps: 83.3, issues: []string{"content shorter than min_chars=400 (got 212)"}},
		{caseID: "json-object", rep: 0, startMS: 2540, ttft: 140, tpot: 11.8, e2el: 1100, tps: 84.7},
		{caseID: "long-summary", rep: 0, startMS: 3660, ttft: 210, tpot: 12.4, e2el: 2900, tps: 80.6, timeout: to},
		{caseID: "greet", rep: 1, startMS: 6580, ttft: 110, tpot: 11.2, e2el: 880, tps: 89.3},
		{caseID: "explain-tides", rep: 1, startMS: 7480, ttft: 160, tpot: 12.1, e2el: 1650, tps: 82.6},
		{caseID: "json-object", rep: 1, startMS: 9150, ttft: 135, tpot: 11.9, e2el: 1080, tps: 84.0},
		{caseID: "long-summary", rep: 1, startMS: 10250, ttft: 230, tpot: 12.9, e2el: 3400, tps: 77.5, timeout: to},
	})
}

// candidatePayload is the same workload on a new model: faster to the
// first token and in generation, explain-tides now passes, json-object
// now fails (a regression) and one request errors.
func candidatePayload() *results.Payload {
	rt := results.Runtime{ModelID: "qwen3-8b-mtp", ModelType: "llm", EngineType: "batched", CacheType: "prefix_cache", MTPEnabled: true, Server: "vllm-mlx"}
	to := ptr(3000.0)
	return payload("cand0002", "qwen3-8b-mtp", rt, []req{
		{caseID: "greet", rep: 0, startMS: 0, ttft: 80, tpot: 8.0, e2el: 640, tps: 125.0},
		{caseID: "explain-tides", rep: 0, startMS: 660, ttft: 152, tpot: 8.4, e2el: 1180, tps: 119.0},
		{caseID: "json-object", rep: 0, startMS: 1860, ttft: 190, tpot: 8.2, e2el: 1300, tps: 121.9, issues: []string{"required_regex '^\\s*\\{' did not match", "content is not valid JSON"}},
		{caseID: "long-summary", rep: 0, startMS: 3180, ttft: 205, tpot: 8.9, e2el: 2100, tps: 112.4, timeout: to},
		{caseID: "greet", rep: 1, startMS: 5300, ttft: 78, tpot: 8.1, e2el: 650, tps: 123.5},
		{caseID: "explain-tides", rep: 1, startMS: 5970, ttft: 149, tpot: 8.3, e2el: 1150, tps: 120.5},
		{caseID: "json-object", rep: 1, startMS: 7140, ttft: 185, tpot: 8.3, e2el: 1290, tps: 120.5},
		{caseID: "long-summary", rep: 1, startMS: 8450, err: "stream: read body: unexpected EOF", e2el: 400, timeout: to},
	})
}

// sweepRows: two prompt sets at concurrency 1, 2, 4, 8, two repetitions.
func sweepRows() []results.SweepResult {
	var rows []results.SweepResult
	for _, set := range []struct {
		name   string
		ttft   float64
		tokens int
	}{{"short", 90, 32}, {"long", 420, 1024}} {
		for _, c := range []int{1, 2, 4, 8} {
			for rep := range 2 {
				r := results.NewSweepResult()
				r.RunID, r.Timestamp, r.Tag = "swp00003", resultio.ISOTimestamp(t0), "nightly"
				r.Chip, r.GPUCores, r.MemoryGB, r.BandwidthGBs, r.OSVersion = "Apple M3 Max", 40, 128, 400, "macOS-15.3-arm64"
				r.ModelID, r.ModelType, r.EngineType, r.CacheType = "qwen3-8b-4bit", "llm", "batched", "prefix_cache"
				r.PromptSet, r.Concurrency, r.Repetition, r.PromptTokens = set.name, c, rep, set.tokens
				f := float64(c)
				r.TTFTms = set.ttft*(1+0.35*(f-1)) + float64(rep)*4
				r.TPOTms = 11 + 1.5*(f-1)
				r.GenTPS = 1000 / r.TPOTms
				r.ThroughputTPS = r.GenTPS*f*0.92*(1-float64(set.tokens)/4096) + float64(rep)
				r.RequestsPerS = r.ThroughputTPS / 256
				r.E2ELms = r.TTFTms + 255*r.TPOTms
				r.Validated = !(set.name == "long" && c == 8 && rep == 1)
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// capacityFixture is a capacity search by rate written by hand as
// results.Capacity marshals it: SLOs ttft_p95_ms <= 500, tpot_p95_ms <= 50
// and error_rate <= 0.01; a ramp 1, 2, 4, 8, 16 (pass), 32 (every request
// failed: null latencies, goodput 0), then bisection 24 (TTFT fails), 20
// (pass), 22 (TPOT and error rate fail): capacity 20 req/s, found.
const capacityFixture = "testdata/capacity.json"

// capacityRun is capacityFixture read by report.Load (labelled
// "capacity").
func capacityRun() report.Run {
	runs, err := report.Load(capacityFixture)
	if err != nil || len(runs) != 1 {
		panic(fmt.Sprintf("fixture %s: %d runs, %v", capacityFixture, len(runs), err))
	}
	return runs[0]
}

// fixedRuns is what the snapshot and the browser test render.
func fixedRuns() []report.Run {
	return []report.Run{
		report.FromPayload(baselinePayload(), "baseline qwen3-8b-4bit"),
		report.FromPayload(candidatePayload(), "candidate qwen3-8b-mtp"),
		report.FromSweep(sweepRows(), ""),
		capacityRun(),
	}
}

// compareFixed compares the candidate run with the baseline as
// benchserve report does (internal/compare, every difference between the
// sides accepted: the candidate is another model).
func compareFixed(base, cand report.Run) *results.Comparison {
	c, err := compare.Workloads([]compare.Run{{Label: base.Label, Payload: base.Payload}},
		[]compare.Run{{Label: cand.Label, Payload: cand.Payload}}, compare.Options{Allow: compare.AllowNames})
	if err != nil {
		panic(fmt.Sprintf("fixture comparison: %v", err))
	}
	return c
}

// fixedOptions are the options the snapshot and the browser test render
// fixedRuns with: the candidate compared with the baseline.
func fixedOptions() report.Options {
	runs := fixedRuns()
	return report.Options{Comparisons: []*results.Comparison{compareFixed(runs[0], runs[1])}}
}
