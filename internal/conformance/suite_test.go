package conformance_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// fixtureKey is the API key the fixture requires in these tests, so that
// errors.wrong_api_key applies (a server that requires no key skips it).
const fixtureKey = "conformance-test-key"

// runSuite runs the builtin suite on a fixture with the given faults
// (answering without delays) and returns the records by contract name.
func runSuite(t *testing.T, faults ...fixtures.Fault) map[string]results.Record {
	t.Helper()
	srv := fixtures.Start(t, fixtures.Options{APIKey: fixtureKey, Faults: faults, Timing: &fixtures.Timing{}})
	ctx := context.Background()
	// The model is named: under models-missing /v1/models lists another.
	r, err := runner.New(ctx, runner.Config{URL: srv.URL, APIKey: fixtureKey, Model: srv.Model()})
	require.NoError(t, err, "runner on the fixture")
	t.Cleanup(r.Close)
	w, err := workloads.Conformance()
	require.NoError(t, err, "the builtin suite parses")
	sess, err := r.Start(ctx, w, runner.RunOptions{})
	require.NoError(t, err, "session")
	require.NoError(t, sess.RunAll(ctx, nil), "run")
	out := map[string]results.Record{}
	for _, rec := range sess.Payload().Results {
		require.NotNil(t, rec.Contract, "case %s is a contract", rec.CaseID)
		out[rec.CaseID] = rec
	}
	require.Len(t, out, len(w.Cases), "one contract record per case")
	return out
}

func TestSuitePassesOnTheFixture(t *testing.T) {
	got := runSuite(t)
	for name, rec := range got {
		c := rec.Contract
		assert.True(t, rec.OK, "%s: the record is ok", name)
		assert.Empty(t, rec.Quality.Issues, "%s: no issue", name)
		assert.Equal(t, "pass", c.Verdict, "%s (%s) on the well-behaved fixture: %s; sent %s; got %s", name, c.Level, c.Evidence, c.Sent, c.Received)
		assert.False(t, c.Failing, "%s does not fail the run", name)
	}
}

func TestEachFaultFailsItsContract(t *testing.T) {
	w, err := workloads.Conformance()
	require.NoError(t, err, "the builtin suite parses")
	inSuite := map[string]bool{}
	for _, c := range w.Cases {
		inSuite[c.ID] = true
	}
	var outside []string
	for _, f := range fixtures.Faults() {
		if !inSuite[f.Contract()] {
			outside = append(outside, string(f))
			continue
		}
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			want := f.Contract()
			got := runSuite(t, f)
			rec, ok := got[want]
			require.True(t, ok, "fault %s names contract %s of the suite", f, want)
			c := rec.Contract
			msgs := append(append([]string{}, rec.Quality.Issues...), rec.Quality.Notes...)
			require.Len(t, msgs, 1, "%s: one message, an issue for a MUST, a note otherwise", want)
			assert.Equal(t, c.Failing, len(rec.Quality.Issues) == 1, "%s: an issue exactly when it fails the run", want)
			assert.Contains(t, msgs[0], "breaks: "+c.Rule+" ("+c.Reference+")", "%s: the message names the rule and its reference", want)
			assert.Contains(t, msgs[0], "sent: ", "%s: the message says what was sent", want)
			assert.Contains(t, msgs[0], "got: ", "%s: the message says what came back", want)
			assert.NotEmpty(t, c.Received, "%s: the record keeps what came back", want)
			assert.Equal(t, "fail", c.Verdict, "fault %s breaks %s: %s", f, want, c.Evidence)
			assert.Equal(t, c.Level == string(contract.Must), c.Failing, "%s fails the run exactly when it is a MUST", want)
			assert.Equal(t, contract.Rules[contract.Kind(c.Check)].Text, c.Rule, "the record names the rule")
			for name, other := range got {
				if name == want || dependent[f][name] {
					continue
				}
				oc := other.Contract
				assert.Equal(t, "pass", oc.Verdict, "fault %s breaks only %s, but %s (%s): %s; got %s", f, want, name, oc.Verdict, oc.Evidence, oc.Received)
			}
		})
	}
	assert.Equal(t, []string{"early-stop", "no-cache-field", "no-tokenize", "wrong-token-count"}, outside,
		"only the length and cache faults (fixtures/lengths_test.go) break no contract of the suite")
}

// dependent lists, per fault, the other contracts that rest on the rule it
// breaks and so cannot hold either.
var dependent = map[fixtures.Fault]map[string]bool{
	// The comparisons read the non-streamed answer as a chat.completion.
	fixtures.Fault("chunk-object"): {"nonstream.agrees": true, "tools.stream_agrees": true, "usage.prompt_agrees": true, "nonstream.seed_repeats": true},
	// The reported completion_tokens is the count max_completion_tokens is judged by.
	// responses.usage holds the Responses stream's usage to the same two
	// rules, and the fixture's usage faults break every endpoint's usage.
	fixtures.Fault("over-count"): {"limits.max_completion_tokens": true, "responses.usage": true},
	fixtures.Fault("bad-total"):  {"responses.usage": true},
	// tools.stream_agrees holds the non-streamed calls to the same rules.
	fixtures.Fault("tools-no-id"):       {"tools.stream_agrees": true},
	fixtures.Fault("tools-finish-stop"): {"tools.stream_agrees": true},
	// choices.n holds every choice to the per-choice rules.
	fixtures.Fault("no-role"):       {"choices.n": true},
	fixtures.Fault("double-finish"): {"choices.n": true},
	// completions.n holds its choices' indexes to completions.index's rule.
	fixtures.Fault("completions-index-zero"): {"completions.n": true},
	// limits.stop_several holds several stop strings to limits.stop's rule.
	fixtures.Fault("ignore-stop"): {"limits.stop_several": true},
}
