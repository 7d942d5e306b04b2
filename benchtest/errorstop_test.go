package benchtest_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/benchtest"
)

func TestInnerErrorStop(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkloadMaxErrorRate (re-executed test binary)")
	}
	benchtest.RunWorkload(t, "testdata/halffailing.json",
		benchtest.WithLoad(benchtest.Load{Rate: 100, Requests: 300, Seed: 1, MaxErrorRate: 0.05}))
}

// TestRunWorkloadMaxErrorRate: a load run half of whose requests fail,
// under MaxErrorRate 0.05, stops early and fails the test with the
// numbers: how many failed of how many, the interval, the limit, and
// how many requests were never sent.
func TestRunWorkloadMaxErrorRate(t *testing.T) {
	out, ok := runInner(t, "TestInnerErrorStop")
	assert.False(t, ok, "a stopped run fails the test")
	assert.Regexp(t, `benchtest: the load run was stopped early: error rate: \d+ of \d+ requests failed \(error rate [\d.]+%, 95% CI [\d.]+%–[\d.]+%\), over the limit 0\.05 with confidence; \d{3} of 300 requests were not sent`, out)
}
