package metrics

import (
	"sync"
	"time"
)

// fakeClock is a manual clock for deterministic durations.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

// statsMap is a StatsProvider returning a fixed map.
type statsMap map[string]any

func (s statsMap) Stats() map[string]any { return s }

// mcpFake is a fixed MCPStatus.
type mcpFake struct {
	states []string
	tools  int
	panics bool
}

func (m mcpFake) ServerStates() []string {
	if m.panics {
		panic("mcp manager exploded")
	}
	return m.states
}
func (m mcpFake) ToolCount() int { return m.tools }

// registryFake is a fixed RegistryStats.
type registryFake map[string]any

func (r registryFake) RegistryStats() map[string]any { return r }

// enabledCollector returns an enabled collector on a fake clock.
func enabledCollector() (*Collector, *fakeClock) {
	clk := newFakeClock()
	c := NewWithOptions(Options{Now: clk.Now})
	c.Configure(true)
	return c, clk
}

// fixedEngine is an engine with every stat the reference reads, fixed.
func fixedEngine() statsMap {
	return statsMap{
		"engine_type":            "batched",
		"is_mllm":                false,
		"num_waiting":            2,
		"num_running":            3,
		"steps_executed":         1234,
		"uptime_seconds":         56.5,
		"metal_active_memory_gb": 1.5,
		"metal_peak_memory_gb":   2.25,
		"metal_cache_memory_gb":  0.5,
		"prefix_cache": map[string]any{
			"entry_count":        7,
			"hits":               5,
			"misses":             3,
			"evictions":          1,
			"hit_rate":           0.625,
			"memory_utilization": 0.25,
			"tokens_saved":       80,
			"current_memory_mb":  2.0,
			"max_memory_mb":      8.0,
		},
	}
}
