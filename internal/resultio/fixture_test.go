package resultio

import (
	"github.com/benchserve/benchserve/results"
)

func ptr[T any](v T) *T { return &v }

// fixedRecords returns three hand-built records with fixed numbers:
//   - greet/0: passed, policy timeout met, cache counters, extra_body, a
//     preview with a quote, a comma, a newline and non-ASCII text;
//   - weather-tool/0: passed with one tool call, no policy timeout, null
//     cache counters (server exposes none);
//   - greet/1: the request failed (Error set), quality issues, policy
//     timeout failed, zero metrics.
func fixedRecords() []results.Record {
	rt := results.Runtime{ModelID: "qwen3-4b", ModelType: "llm", EngineType: "batched", KVQuant: "q8", CacheType: "prefix", MetalActiveGB: 4.5, MetalPeakGB: 6.25, MetalCacheGB: 1.0}
	hw := results.Hardware{Chip: "Apple M3 Max", GPUCores: 40, MemoryGB: 64.0, BandwidthGBs: 400.0, OSVersion: "14.5"}
	metal := results.Metal{Model: "qwen3-4b", MetalActiveGB: 4.5, MetalPeakGB: 6.25, MetalCacheGB: 1.0, CacheType: "prefix"}
	base := func(caseID string, rep int) results.Record {
		return results.Record{
			RunID: "abcd1234", Timestamp: "2025-01-02T03:04:05.123456+00:00",
			StartedAt: "2025-01-02T03:04:06+00:00", Workload: "smoke", CaseID: caseID,
			Repetition: rep, ModelID: "qwen3-4b", Runtime: rt, Hardware: hw,
			CacheReset: results.CacheReset{Attempted: false},
		}
	}

	a := base("greet", 0)
	a.Tags = []string{"smoke", "chat"}
	a.Request = results.RequestInfo{MaxTokens: 128, EnableThinking: ptr(false), ExtraBody: map[string]any{"top_p": float64(1), "temperature": 0.2}, MessageCount: 2}
	a.Policy = results.Policy{TimeoutMS: ptr(2000.0), WithinTimeout: ptr(true)}
	a.Metrics = results.Metrics{TTFTms: 120.5, TPOTms: 18.25, E2ELms: 950.25, GenTPS: 42.0, PromptTPS: 812.5,
		PromptTokens: 96, CompletionTokens: 40, CacheHits: ptr[int64](3), CacheMisses: ptr[int64](1),
		TokensSaved: ptr[int64](48), Metal: metal, TTFOms: ptr(120.5), ITLms: []float64{18, 18.5}, UsagePresent: true, TokenChunks: 40}
	a.Quality = results.Quality{OK: true, Issues: []string{}, FinishReason: ptr("stop"), ContentChars: 31,
		ContentPreview: "It's \"café\", friend\nsee you"}
	a.OK = true

	b := base("weather-tool", 0)
	b.Tags = []string{"tools"}
	b.Request = results.RequestInfo{MaxTokens: 256, ExtraBody: map[string]any{}, MessageCount: 1}
	b.Metrics = results.Metrics{TTFTms: 80.0, TPOTms: 10.0, E2ELms: 400.0, GenTPS: 55.5, PromptTPS: 1000.0,
		PromptTokens: 150, CompletionTokens: 22, Metal: metal, UsagePresent: true, TokenChunks: 22}
	b.Quality = results.Quality{OK: true, Issues: []string{}, FinishReason: ptr("tool_calls"), ContentChars: 0, ContentPreview: ""}
	b.ToolCalls = &results.ToolCallsSummary{Count: 1, Names: []string{"get_weather"}, Raw: []results.ToolCall{{
		ID: "call_0", Type: "function", Function: results.FunctionCall{Name: "get_weather", Arguments: `{"city": "Paris"}`},
	}}}
	b.OK = true

	c := base("greet", 1)
	c.Tags = []string{"smoke", "chat"}
	c.Request = a.Request
	c.Policy = results.Policy{TimeoutMS: ptr(2000.0), WithinTimeout: ptr(false)}
	c.Metrics = results.Metrics{CacheHits: ptr[int64](0), CacheMisses: ptr[int64](0), TokensSaved: ptr[int64](0), Metal: metal}
	c.Quality = results.Quality{OK: false, Issues: []string{
		"finish_reason None not in ['stop']", "request error: connection refused",
	}, ContentPreview: ""}
	c.Error = "connection refused"

	return []results.Record{a, b, c}
}

// fixedPayload is the payload every format snapshot renders.
func fixedPayload() *results.Payload {
	return BuildPayload(PayloadInput{
		RunID:     "abcd1234",
		Timestamp: "2025-01-02T03:04:05.123456+00:00",
		Workload: results.WorkloadInfo{Name: "smoke", Description: "Smoke workload", Path: "/tmp/smoke.json",
			Defaults: map[string]any{"max_tokens": float64(128), "checks": map[string]any{"finish_reason": []any{"stop"}}}, Repetitions: 2},
		RequestTimeoutS: ptr(300.0),
		CacheMode:       "before-case",
		CacheEvents: []results.CacheEvent{{Scope: "before-case", CaseID: ptr("greet"), Repetition: ptr(0),
			Event: results.CacheReset{Attempted: true, OK: ptr(true), StatusCode: ptr(200), Response: map[string]any{"cleared": true}}}},
		Records: fixedRecords(),
	})
}

// fixedSweep returns two sweep results with fixed numbers, one with
// enable_thinking unset and one failed (validated false).
func fixedSweep() []results.SweepResult {
	a := results.NewSweepResult()
	a.RunID, a.Timestamp, a.Tag = "abcd1234", "2025-01-02T03:04:05+00:00", "baseline"
	a.Chip, a.GPUCores, a.MemoryGB, a.BandwidthGBs, a.OSVersion = "Apple M3 Max", 40, 64, 400, "14.5"
	a.ModelID, a.ModelType, a.EngineType = "qwen3-4b", "llm", "batched"
	a.PromptSet, a.Concurrency, a.PromptTokens = "short", 1, 35
	a.TTFTms, a.TPOTms, a.E2ELms, a.GenTPS, a.PromptTPS = 101.25, 12.5, 1700.0, 80.04, 345.6
	a.ThroughputTPS, a.RequestsPerS = 80.04, 0.588
	a.CacheHits, a.CacheMisses, a.CacheHitRate, a.TokensSaved = 1, 1, 0.5, 32

	b := a
	b.PromptSet, b.Concurrency, b.EnableThinking = "long", 4, ptr(true)
	b.ExtraBody = `{"top_k": 20}`
	b.Repetition = 1
	b.PromptTokens, b.TTFTms, b.TPOTms, b.E2ELms, b.GenTPS, b.PromptTPS = 1200, 1523.75, 25.0, 9000.5, 40.0, 787.0
	b.ThroughputTPS, b.RequestsPerS, b.CacheHitRate = 160.0, 0.444, 0
	b.Validated = false
	return []results.SweepResult{a, b}
}
