package metrics

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// gauge returns the value of the named (optionally labelled) engine sample.
func gauge(t *testing.T, samples []Sample, name, labelValue string) float64 {
	t.Helper()
	for _, s := range samples {
		if s.Name == name && s.LabelValue == labelValue {
			return s.Value
		}
	}
	t.Fatalf("sample %s{%s} not found", name, labelValue)
	return 0
}

func TestEngineSamplesNoEngine(t *testing.T) {
	s := EngineSamples(nil, nil, nil)
	assert.Len(t, s, 30, "23 engine families: 20 unlabelled samples plus 3 engine types, 3 memory kinds and 4 cache types")
	assert.Equal(t, 0.0, gauge(t, s, "vllm_mlx_model_loaded", ""), "no engine: model_loaded 0")
	assert.Equal(t, 1.0, gauge(t, s, "vllm_mlx_engine_type", "unknown"), "no engine: engine_type unknown")
	assert.Equal(t, 0.0, gauge(t, s, "vllm_mlx_engine_type", "batched"), "no engine: not batched")
	assert.Equal(t, 1.0, gauge(t, s, "vllm_mlx_cache_type", "none"), "no engine: cache_type none")
	assert.Equal(t, 0.0, gauge(t, s, "vllm_mlx_cache_hits", ""), "no engine: hits 0")
}

func TestEngineSamplesFixedEngine(t *testing.T) {
	s := EngineSamples(fixedEngine(), mcpFake{states: []string{"connected", "failed", "connected"}, tools: 4},
		registryFake{"total_entries": "3", "active_owners": 2.9})
	cases := []struct {
		name, label string
		want        float64
	}{
		{"vllm_mlx_model_loaded", "", 1},
		{"vllm_mlx_engine_type", "batched", 1},
		{"vllm_mlx_engine_type", "simple", 0},
		{"vllm_mlx_engine_type", "unknown", 0},
		{"vllm_mlx_engine_is_mllm", "", 0},
		{"vllm_mlx_scheduler_waiting_requests", "", 2},
		{"vllm_mlx_scheduler_running_requests", "", 3},
		{"vllm_mlx_engine_steps_executed", "", 1234},
		{"vllm_mlx_engine_uptime_seconds", "", 56.5},
		{"vllm_mlx_metal_memory_bytes", "active", 1.5e9},
		{"vllm_mlx_metal_memory_bytes", "peak", 2.25e9},
		{"vllm_mlx_metal_memory_bytes", "cache", 0.5e9},
		{"vllm_mlx_cache_type", "prefix_cache", 1},
		{"vllm_mlx_cache_type", "none", 0},
		{"vllm_mlx_cache_entry_count", "", 7},
		{"vllm_mlx_cache_hits", "", 5},
		{"vllm_mlx_cache_misses", "", 3},
		{"vllm_mlx_cache_evictions", "", 1},
		{"vllm_mlx_cache_hit_rate", "", 0.625},
		{"vllm_mlx_cache_utilization_ratio", "", 0.25},
		{"vllm_mlx_cache_tokens_saved", "", 80},
		{"vllm_mlx_cache_memory_bytes", "", 2 * 1024 * 1024},
		{"vllm_mlx_cache_memory_limit_bytes", "", 8 * 1024 * 1024},
		{"vllm_mlx_model_registry_entries", "", 3},
		{"vllm_mlx_model_registry_active_owners", "", 2},
		{"vllm_mlx_mcp_connected_servers", "", 2},
		{"vllm_mlx_mcp_total_servers", "", 3},
		{"vllm_mlx_mcp_tools_available", "", 4},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, gauge(t, s, tc.name, tc.label), "%s{%s}", tc.name, tc.label)
	}
}

func TestEngineSamplesCacheTypePriority(t *testing.T) {
	cache := map[string]any{"hits": 1}
	cases := []struct {
		name  string
		stats statsMap
		want  string
	}{
		{"memory_aware wins over all", statsMap{"prefix_cache": cache, "paged_cache": cache, "memory_aware_cache": cache}, "memory_aware_cache"},
		{"paged wins over prefix", statsMap{"prefix_cache": cache, "paged_cache": cache}, "paged_cache"},
		{"prefix alone", statsMap{"prefix_cache": cache}, "prefix_cache"},
		{"none", statsMap{"other_cache": cache}, "none"},
		{"present but nil still selects the type", statsMap{"paged_cache": nil}, "paged_cache"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := EngineSamples(tc.stats, nil, nil)
			for _, ct := range cacheTypes {
				want := 0.0
				if ct == tc.want {
					want = 1
				}
				assert.Equal(t, want, gauge(t, s, "vllm_mlx_cache_type", ct), "cache_type{%s}", ct)
			}
		})
	}
}

func TestEngineSamplesCacheKeyFallbacks(t *testing.T) {
	cases := []struct {
		name   string
		cache  any
		metric string
		want   float64
	}{
		{"entry_count", map[string]any{"entry_count": 4, "allocated_blocks": 9}, "vllm_mlx_cache_entry_count", 4},
		{"allocated_blocks", map[string]any{"allocated_blocks": 9}, "vllm_mlx_cache_entry_count", 9},
		{"hits", map[string]any{"hits": 2, "cache_hits": 7}, "vllm_mlx_cache_hits", 2},
		{"cache_hits", map[string]any{"cache_hits": 7}, "vllm_mlx_cache_hits", 7},
		{"hits present but nil does not fall back", map[string]any{"hits": nil, "cache_hits": 7}, "vllm_mlx_cache_hits", 0},
		{"misses", map[string]any{"misses": 3, "cache_misses": 8}, "vllm_mlx_cache_misses", 3},
		{"cache_misses", map[string]any{"cache_misses": 8}, "vllm_mlx_cache_misses", 8},
		{"evictions", map[string]any{"evictions": "6"}, "vllm_mlx_cache_evictions", 6},
		{"hit_rate", map[string]any{"hit_rate": 0.5, "cache_hit_rate": 0.9}, "vllm_mlx_cache_hit_rate", 0.5},
		{"cache_hit_rate", map[string]any{"cache_hit_rate": 0.9}, "vllm_mlx_cache_hit_rate", 0.9},
		{"memory_utilization", map[string]any{"memory_utilization": 0.3, "utilization": 0.7}, "vllm_mlx_cache_utilization_ratio", 0.3},
		{"utilization", map[string]any{"utilization": 0.7}, "vllm_mlx_cache_utilization_ratio", 0.7},
		{"tokens_saved", map[string]any{"tokens_saved": int64(128)}, "vllm_mlx_cache_tokens_saved", 128},
		{"current_memory_mb to bytes", map[string]any{"current_memory_mb": 1.5}, "vllm_mlx_cache_memory_bytes", 1.5 * 1024 * 1024},
		{"max_memory_mb to bytes", map[string]any{"max_memory_mb": "4"}, "vllm_mlx_cache_memory_limit_bytes", 4 * 1024 * 1024},
		{"typed map accepted", map[string]int{"hits": 11}, "vllm_mlx_cache_hits", 11},
		{"not a map reads zeros", []any{1, 2}, "vllm_mlx_cache_hits", 0},
		{"unparsable value reads zero", map[string]any{"hits": "many"}, "vllm_mlx_cache_hits", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := EngineSamples(statsMap{"prefix_cache": tc.cache}, nil, nil)
			assert.Equal(t, tc.want, gauge(t, s, tc.metric, ""), "%s from %v", tc.metric, tc.cache)
		})
	}
}

func TestEngineSamplesEngineTypeAndFlags(t *testing.T) {
	s := EngineSamples(statsMap{"engine_type": "simple", "is_mllm": 1}, nil, nil)
	assert.Equal(t, 1.0, gauge(t, s, "vllm_mlx_engine_type", "simple"), "engine_type simple")
	assert.Equal(t, 1.0, gauge(t, s, "vllm_mlx_engine_is_mllm", ""), "is_mllm truthy 1")

	s = EngineSamples(statsMap{}, nil, nil)
	assert.Equal(t, 1.0, gauge(t, s, "vllm_mlx_engine_type", "unknown"), "absent engine_type reads unknown")

	s = EngineSamples(statsMap{"engine_type": "speculative"}, nil, nil)
	for _, et := range engineTypes {
		assert.Equal(t, 0.0, gauge(t, s, "vllm_mlx_engine_type", et), "unlisted engine type sets %s to 0", et)
	}
	s = EngineSamples(statsMap{"engine_type": nil}, nil, nil)
	assert.Equal(t, 0.0, gauge(t, s, "vllm_mlx_engine_type", "unknown"), "engine_type present but nil matches nothing")
}

func TestEngineSamplesMCPAndRegistryPanicsReadZero(t *testing.T) {
	s := EngineSamples(nil, mcpFake{panics: true, tools: 5}, panickyRegistry{})
	assert.Equal(t, 0.0, gauge(t, s, "vllm_mlx_mcp_total_servers", ""), "MCP panic reads zero servers")
	assert.Equal(t, 0.0, gauge(t, s, "vllm_mlx_mcp_tools_available", ""), "MCP panic reads zero tools")
	assert.Equal(t, 0.0, gauge(t, s, "vllm_mlx_model_registry_entries", ""), "registry panic reads zero")
}

type panickyRegistry struct{}

func (panickyRegistry) RegistryStats() map[string]any { panic("registry exploded") }

func TestCoerceFloat(t *testing.T) {
	cases := []struct {
		in   any
		want float64
	}{
		{nil, -1}, {3, 3}, {int8(-2), -2}, {uint64(7), 7}, {float32(0.5), 0.5}, {2.75, 2.75},
		{true, 1}, {false, 0}, {"4.5", 4.5}, {"  12 ", 12}, {"1e3", 1000}, {"-0.25", -0.25},
		{"1_000.5", 1000.5}, {"inf", math.Inf(1)}, {"-Infinity", math.Inf(-1)}, {"1e400", math.Inf(1)},
		{json.Number("8"), 8}, {"", -1}, {"abc", -1}, {"0x10", -1}, {"1__0", -1}, {"_1", -1},
		{[]int{1}, -1}, {map[string]any{}, -1}, {struct{}{}, -1},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, coerceFloat(tc.in, -1), "coerceFloat(%#v)", tc.in)
	}
	assert.True(t, math.IsNaN(coerceFloat("nan", -1)), "coerceFloat(\"nan\") is NaN like Python float")
}

func TestCoerceInt(t *testing.T) {
	cases := []struct {
		in   any
		want int64
	}{
		{nil, -1}, {3, 3}, {int32(-4), -4}, {uint(9), 9}, {uint64(math.MaxUint64), -1},
		{2.9, 2}, {-2.9, -2}, {float32(7.5), 7}, {math.NaN(), -1}, {math.Inf(1), -1}, {1e300, -1},
		{true, 1}, {false, 0}, {"42", 42}, {" -7 ", -7}, {"+5", 5}, {"1_000", 1000},
		{"3.5", -1}, {"abc", -1}, {"", -1}, {json.Number("12"), 12}, {json.Number("12.7"), 12},
		{[]string{"1"}, -1},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, coerceInt(tc.in, -1), "coerceInt(%#v)", tc.in)
	}
}
