package results

func ptr[T any](v T) *T { return &v }

// fixedRecords returns three hand-built records with fixed numbers:
//   - greet/0: passed, policy timeout met, cache counters, extra_body, a
//     preview with a quote, a comma, a newline and non-ASCII text;
//   - weather-tool/0: passed with one tool call, no policy timeout, null
//     cache counters (server exposes none);
//   - greet/1: the request failed (Error set), quality issues, policy
//     timeout failed, zero metrics.
func fixedRecords() []Record {
	rt := Runtime{ModelID: "qwen3-4b", ModelType: "llm", EngineType: "batched", KVQuant: "q8", CacheType: "prefix", MetalActiveGB: 4.5, MetalPeakGB: 6.25, MetalCacheGB: 1.0}
	hw := Hardware{Chip: "Apple M3 Max", GPUCores: 40, MemoryGB: 64.0, BandwidthGBs: 400.0, OSVersion: "14.5"}
	metal := Metal{Model: "qwen3-4b", MetalActiveGB: 4.5, MetalPeakGB: 6.25, MetalCacheGB: 1.0, CacheType: "prefix"}
	base := func(caseID string, rep int) Record {
		return Record{
			RunID: "abcd1234", Timestamp: "2025-01-02T03:04:05.123456+00:00",
			StartedAt: "2025-01-02T03:04:06+00:00", Workload: "smoke", CaseID: caseID,
			Repetition: rep, ModelID: "qwen3-4b", Runtime: rt, Hardware: hw,
			CacheReset: CacheReset{Attempted: false},
		}
	}

	a := base("greet", 0)
	a.Tags = []string{"smoke", "chat"}
	a.Request = RequestInfo{MaxTokens: 128, EnableThinking: ptr(false), ExtraBody: map[string]any{"top_p": float64(1), "temperature": 0.2}, MessageCount: 2}
	a.Policy = Policy{TimeoutMS: ptr(2000.0), WithinTimeout: ptr(true)}
	a.Metrics = Metrics{TTFTms: 120.5, TPOTms: 18.25, E2ELms: 950.25, GenTPS: 42.0, PromptTPS: 812.5,
		PromptTokens: 96, CompletionTokens: 40, CacheHits: ptr[int64](3), CacheMisses: ptr[int64](1),
		TokensSaved: ptr[int64](48), Metal: metal, TTFOms: ptr(120.5), ITLms: []float64{18, 18.5}, UsagePresent: true, TokenChunks: 40}
	a.Quality = Quality{OK: true, Issues: []string{}, FinishReason: ptr("stop"), ContentChars: 31,
		ContentPreview: "It's \"café\", friend\nsee you"}
	a.OK = true

	b := base("weather-tool", 0)
	b.Tags = []string{"tools"}
	b.Request = RequestInfo{MaxTokens: 256, ExtraBody: map[string]any{}, MessageCount: 1}
	b.Metrics = Metrics{TTFTms: 80.0, TPOTms: 10.0, E2ELms: 400.0, GenTPS: 55.5, PromptTPS: 1000.0,
		PromptTokens: 150, CompletionTokens: 22, Metal: metal, UsagePresent: true, TokenChunks: 22}
	b.Quality = Quality{OK: true, Issues: []string{}, FinishReason: ptr("tool_calls"), ContentChars: 0, ContentPreview: ""}
	b.ToolCalls = &ToolCallsSummary{Count: 1, Names: []string{"get_weather"}, Raw: []ToolCall{{
		ID: "call_0", Type: "function", Function: FunctionCall{Name: "get_weather", Arguments: `{"city": "Paris"}`},
	}}}
	b.OK = true

	c := base("greet", 1)
	c.Tags = []string{"smoke", "chat"}
	c.Request = a.Request
	c.Policy = Policy{TimeoutMS: ptr(2000.0), WithinTimeout: ptr(false)}
	c.Metrics = Metrics{CacheHits: ptr[int64](0), CacheMisses: ptr[int64](0), TokensSaved: ptr[int64](0), Metal: metal}
	c.Quality = Quality{OK: false, Issues: []string{
		"finish_reason None not in ['stop']", "request error: connection refused",
	}, ContentPreview: ""}
	c.Error = "connection refused"

	return []Record{a, b, c}
}
