package cli

import (
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// A dataset run ends with vLLM's result block, its figures from the
// run's summary; failed requests are counted there and said on an
// Error: line, with no SLO to fail.
func TestLoadRunPrintsVLLMResultBlock(t *testing.T) {
	var n atomic.Int64
	srv := fixtures.Start(t, fixtures.Options{Timing: &fixtures.Timing{}, Responder: func(req fixtures.Request) fixtures.Script {
		if n.Add(1)%4 == 0 {
			return fixtures.Script{Status: 500, ErrorBody: `{"error":{"message":"overloaded"}}`}
		}
		return fixtures.Script{Content: []string{"a ", "b ", "c"}}
	}})
	res := invoke(t, "--url", srv.URL, "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "8",
		"--num-prompts", "20", "--request-rate", "200", "--seed", "1")
	require.Equal(t, ExitFailed, res.code, "failed requests fail the run:\n%s", res.stderr)
	for _, want := range []string{
		"============ Serving Benchmark Result ============",
		"---------------Time to First Token----------------",
		"-----Time per Output Token (excl. 1st token)------",
		"----------------End-to-end Latency----------------",
	} {
		assert.Contains(t, res.stderr, want)
	}
	count := func(label string) string {
		m := regexp.MustCompile(regexp.QuoteMeta(label) + ` +(\S+)`).FindStringSubmatch(res.stderr)
		require.NotNil(t, m, "%s in:\n%s", label, res.stderr)
		return m[1]
	}
	failed := count("Failed requests:")
	assert.NotEqual(t, "0", failed, "some requests got a 500")
	assert.Equal(t, "20", func() string { s, f := count("Successful requests:"), failed; return itoaSum(t, s, f) }(), "succeeded + failed = the requests")
	assert.Regexp(t, `Median TTFT \(ms\): +[0-9]+\.[0-9]{2}\n`, res.stderr, "latencies in ms, two decimals")
	assert.Regexp(t, `Error: `+failed+` of 20 requests failed \(http_5xx `+failed+`\)`, res.stderr, "and said at the end, with their kind")
}

// itoaSum adds two decimal counts, as text.
func itoaSum(t *testing.T, a, b string) string {
	t.Helper()
	x, err := strconv.Atoi(a)
	require.NoError(t, err)
	y, err := strconv.Atoi(b)
	require.NoError(t, err)
	return strconv.Itoa(x + y)
}
