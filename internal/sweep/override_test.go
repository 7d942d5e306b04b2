package sweep_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/sweep"
	"github.com/benchserve/benchserve/results"
)

func TestParseOverride(t *testing.T) {
	o, err := sweep.ParseOverride("chip=M4 Pro=max")
	require.NoError(t, err)
	assert.Equal(t, sweep.Override{Field: "chip", Value: "M4 Pro=max"}, o, "split at the first =")
	_, err = sweep.ParseOverride("chip")
	assert.Error(t, err, "no = is an error")
	_, err = sweep.ParseOverride("=x")
	assert.Error(t, err, "empty key is an error")
}

func TestApplyOverrides(t *testing.T) {
	r := results.NewSweepResult()
	err := sweep.ApplyOverrides(&r, []sweep.Override{
		{"chip", "M4Pro"}, {"gpu_cores", "40"}, {"memory_gb", "48.5"}, {"mtp_enabled", "True"},
		{"enable_thinking", "false"}, {"cache_hits", "7"}, {"validated", "false"},
	})
	require.NoError(t, err)
	assert.Equal(t, "M4Pro", r.Chip, "string field")
	assert.Equal(t, 40, r.GPUCores, "int field")
	assert.Equal(t, 48.5, r.MemoryGB, "float field")
	assert.True(t, r.MTPEnabled, "bool field from Python spelling True")
	require.NotNil(t, r.EnableThinking, "nullable bool set")
	assert.False(t, *r.EnableThinking, "nullable bool value")
	assert.Equal(t, 7, r.CacheHits, "int cache field")
	assert.False(t, r.Validated, "validated overridden")

	require.NoError(t, sweep.ApplyOverrides(&r, []sweep.Override{{"enable_thinking", "None"}}))
	assert.Nil(t, r.EnableThinking, "None clears a nullable field")

	err = sweep.ApplyOverrides(&r, []sweep.Override{{"chipp", "x"}, {"gpu_cores", "many"}})
	assert.ErrorIs(t, err, sweep.ErrUnknownField, "unknown field")
	assert.ErrorContains(t, err, `want an integer, got "many"`, "both problems are reported")
	assert.Error(t, sweep.CheckOverrides([]sweep.Override{{"memory_gb", "lots"}}), "CheckOverrides validates values")
	assert.NoError(t, sweep.CheckOverrides([]sweep.Override{{"tag", "x"}}), "CheckOverrides accepts a valid override")
}
