package benchtest_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/workloads"
)

const conformanceKey = "benchtest-conformance-key"

func TestRunConformancePassesOnTheFixture(t *testing.T) {
	p := benchtest.RunConformance(t, benchtest.WithAPIKey(conformanceKey),
		benchtest.WithFixture(fixtures.Options{APIKey: conformanceKey, Timing: &fixtures.Timing{}}))
	contracts := p.Contracts()
	w, err := workloads.Conformance()
	require.NoError(t, err, "the builtin suite parses")
	require.Len(t, contracts, len(w.Cases), "one record per contract of the builtin suite")
	for _, c := range contracts {
		assert.Equal(t, "pass", c.Verdict, "%s: %s", c.Name, c.Evidence)
	}
}

func TestInnerConformanceFault(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunConformanceFailsTheBrokenContract (re-executed test binary)")
	}
	benchtest.RunConformance(t, benchtest.WithTags("stream", "choices"),
		benchtest.WithFixture(fixtures.Options{Faults: []fixtures.Fault{fixtures.Fault("no-done"), fixtures.Fault("ignore-n")}, Timing: &fixtures.Timing{}}))
}

func TestInnerConformanceStrict(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunConformanceFailsTheBrokenContract (re-executed test binary)")
	}
	benchtest.RunConformance(t, benchtest.WithTags("choices"), benchtest.ConformanceStrict(),
		benchtest.WithFixture(fixtures.Options{Faults: []fixtures.Fault{fixtures.Fault("ignore-n")}, Timing: &fixtures.Timing{}}))
}

func TestRunConformanceFailsTheBrokenContract(t *testing.T) {
	out, ok := runInner(t, "TestInnerConformanceFault")
	assert.False(t, ok, "a MUST that breaks fails the test")
	assert.Contains(t, out, "--- FAIL: TestInnerConformanceFault/stream.framing", "one subtest per contract, named by the contract")
	assert.Contains(t, out, `workloads/conformance.json: case "stream.framing": stream.framing (MUST): the stream ended after`,
		"the failure names the suite, the contract and what happened")
	assert.Contains(t, out, "breaks: a stream is data: events of JSON chat.completion.chunk objects ending with data: [DONE] (https://platform.openai.com/docs/api-reference/chat/streaming)", "and the rule")
	assert.Contains(t, out, "--- PASS: TestInnerConformanceFault/stream.same_id", "the other contracts hold")
	assert.Contains(t, out, "--- PASS: TestInnerConformanceFault/choices.n", "a SHOULD that breaks is a warning")
	assert.Contains(t, out, "benchtest: warning (SHOULD, does not fail the run): choices.n (SHOULD): n 2 gave choice indexes [0]")

	out, ok = runInner(t, "TestInnerConformanceStrict")
	assert.False(t, ok, "with ConformanceStrict a SHOULD that breaks fails the test")
	assert.Contains(t, out, "--- FAIL: TestInnerConformanceStrict/choices.n")
}
