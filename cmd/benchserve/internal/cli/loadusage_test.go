package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/fixtures"
)

// Load flags that cannot do what they say are usage errors (exit 2)
// before anything is sent or written: a split that cannot be made, a
// burstiness of 0, a rate flag without a rate.
func TestLoadUsageErrorsBeforeAnythingIsWritten(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"count smaller than the shards", []string{"--num-prompts", "2", "--shard", "5/10", "--run-id", "r1"}, "2 requests cannot be split 10 ways"},
		{"default count smaller than the shards", []string{"--shard", "1/4", "--run-id", "r1", "--request-rate", "5", "--repetitions", "1"}, "3 requests cannot be split 4 ways"},
		{"burstiness 0", []string{"--request-rate", "5", "--num-prompts", "3", "--burstiness", "0"}, "--burstiness 0: want a gamma shape > 0"},
		{"burstiness without a rate", []string{"--num-prompts", "3", "--burstiness", "2"}, "--burstiness 2 has no effect without a --request-rate"},
		{"seed without a rate", []string{"--num-prompts", "3", "--seed", "4"}, "--seed 4 has no effect without a --request-rate or --mix sample"},
		{"num-prompts 0", []string{"--request-rate", "5", "--num-prompts", "0"}, "--num-prompts 0: want at least 1 request"},
		{"max-concurrency 0", []string{"--num-prompts", "3", "--max-concurrency", "0"}, "--max-concurrency 0: want at least 1 request in flight"},
		// Under a nanosecond it would be 0, which means no duration at all.
		{"duration under a nanosecond", []string{"--request-rate", "5", "--duration", "0.0000000001"}, `want a positive duration such as 2m or 90s, or seconds, got "0.0000000001"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fixtures.Start(t, fixtures.Options{})
			out := filepath.Join(t.TempDir(), "out.json")
			res := invoke(t, append([]string{"--url", srv.URL, "--workload", smoke, "--output", out}, tc.args...)...)
			assert.Equal(t, ExitUsage, res.code, "a usage error")
			assert.Contains(t, res.stderr, tc.want, "says what is wrong")
			assert.NotContains(t, res.stderr, "Workload results written", "nothing written")
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "no output file")
			assert.Empty(t, srv.ChatRequests(), "nothing sent")
		})
	}
	t.Run("seed with sampling is fine", func(t *testing.T) {
		srv := fixtures.Start(t, fixtures.Options{})
		res := invoke(t, "--url", srv.URL, "--workload", smoke, "--num-prompts", "3", "--seed", "4", "--mix", "sample", "--output", filepath.Join(t.TempDir(), "o.json"))
		assert.Equal(t, ExitOK, res.code, "--seed draws the mix")
	})
}
