package benchtest_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/results"
)

// OnRecord sees each judged case once, inside its subtest: a passing
// case and a capped one (finish_reason length: not validated) both with
// no failed check, so a snapshot of a capped answer lists none.
func TestOnRecordFailedChecks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"name":"hook","cases":[
	 {"id":"full","max_tokens":2000,"messages":[{"role":"user","content":"Say hello."}]},
	 {"id":"capped","max_tokens":2,"messages":[{"role":"user","content":"Say hello."}]}]}`), 0o644))
	var mu sync.Mutex
	seen := map[string][]string{}
	outcomes := map[string]results.Outcome{}
	benchtest.RunWorkload(t, path, benchtest.WithFixture(fixtures.Options{Timing: &fixtures.Timing{}}),
		benchtest.OnRecord(func(st *testing.T, rec results.Record, failedChecks []string) {
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, "TestOnRecordFailedChecks/"+rec.CaseID, st.Name(), "called inside the case's subtest")
			seen[rec.CaseID] = failedChecks
			outcomes[rec.CaseID] = rec.Outcome
		}))
	assert.Equal(t, map[string][]string{"full": {}, "capped": {}}, seen, "each case once, no failed check")
	assert.Equal(t, results.OutcomeCapped, outcomes["capped"], "the short case was capped")
	assert.Equal(t, results.OutcomePass, outcomes["full"], "the long case stopped on its own")
}
