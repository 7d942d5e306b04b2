package loadgen_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/loadgen"
)

// TestShardFromSlurmArray: a Slurm job array task is a shard, as an
// Indexed Job's pod: its task id, from the array's lowest id by its step,
// of the array's task count (or BENCHSERVE_SHARDS).
func TestShardFromSlurmArray(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want loadgen.Shard
		err  string
	}{
		{"--array=0-3, task 2", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "1"},
			loadgen.Shard{Index: 2, Count: 4}, ""},
		{"--array=1-4, task 1 is the first shard", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"},
			loadgen.Shard{Index: 0, Count: 4}, ""},
		{"--array=0-6:2, task 6 is the last", map[string]string{"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2"},
			loadgen.Shard{Index: 3, Count: 4}, ""},
		{"count from BENCHSERVE_SHARDS", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "BENCHSERVE_SHARDS": "8"},
			loadgen.Shard{Index: 3, Count: 8}, ""},
		{"both counts agreeing", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8", "BENCHSERVE_SHARDS": "8"},
			loadgen.Shard{Index: 3, Count: 8}, ""},
		{"BENCHSERVE_SHARD wins", map[string]string{"BENCHSERVE_SHARD": "1/2", "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"},
			loadgen.Shard{Index: 1, Count: 2}, ""},
		{"an Indexed Job's index wins", map[string]string{"JOB_COMPLETION_INDEX": "0", "BENCHSERVE_SHARDS": "2", "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"},
			loadgen.Shard{Index: 0, Count: 2}, ""},
		{"no count", map[string]string{"SLURM_ARRAY_TASK_ID": "3"},
			loadgen.Shard{}, "SLURM_ARRAY_TASK_ID=3 is set but neither SLURM_ARRAY_TASK_COUNT nor BENCHSERVE_SHARDS is"},
		{"counts disagree", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4", "BENCHSERVE_SHARDS": "8"},
			loadgen.Shard{}, "SLURM_ARRAY_TASK_COUNT=4 but BENCHSERVE_SHARDS=8"},
		{"a list of ids", map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0"},
			loadgen.Shard{}, "SLURM_ARRAY_TASK_ID=7 of 3 tasks (min 0, step 1): shard index 7: want 0 <= I < 3"},
		{"off the step", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "2"},
			loadgen.Shard{}, "SLURM_ARRAY_TASK_ID=3 is not on the array's range (min 0, step 2)"},
		{"not a number", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"},
			loadgen.Shard{}, `SLURM_ARRAY_TASK_ID="x": want a whole number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := loadgen.ShardFromEnv(func(k string) string { return tc.env[k] })
			if tc.err != "" {
				require.Error(t, err, "refused")
				assert.Contains(t, err.Error(), tc.err, "the error names the variables")
				return
			}
			require.NoError(t, err, "a shard")
			assert.Equal(t, tc.want, s, "the shard")
		})
	}
}
