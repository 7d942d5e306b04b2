package benchtest

import (
	"testing"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// ConformanceStrict makes a SHOULD contract that fails fail its subtest
// (RunConformance, or RunWorkload on a workload with protocol cases), as
// benchserve conformance --strict does. Without it such a failure is
// logged as a warning.
func ConformanceStrict() Option {
	return func(c *config) { c.given("ConformanceStrict"); c.strict = true }
}

// RunConformance runs the builtin protocol contract suite
// (workloads/conformance.json, package workloads) against the server, one
// subtest per contract named by the contract (t.Name()/stream.framing,
// t.Name()/tools.arguments, …; stable, so gotestsum reruns and JUnit
// test cases name them). A subtest fails when its contract fails the run
// (a MUST that broke, a SHOULD with ConformanceStrict), with the rule it
// breaks, its reference, what was sent and what came back; a SHOULD or
// MAY that broke otherwise is logged as a warning; a contract that did
// not apply is skipped with the reason; one whose feature the server
// refused with a 4xx (verdict "unsupported": n > 1, a json_schema
// response_format) is logged, neither failed nor skipped. Every subtest carries the
// attributes contract_level, verdict and rule (JUnit properties).
//
// Options are RunWorkload's (WithURL, WithModel, WithAPIKey, WithTags to
// pick contract groups such as "tools", WithOutput, …); with no URL the
// fixture server is started. The payload holds one record per contract
// (Record.Contract: name, level, verdict, evidence).
func RunConformance(t *testing.T, opts ...Option) *results.Payload {
	t.Helper()
	cfg, err := resolve(opts)
	if err != nil {
		say(t).Fatalf("benchtest: configuration: %s", linesOf(err))
	}
	refuseInapplicable(t, cfg, doorRunConformance, nil)
	if len(cfg.concurrencyLevels) > 0 || cfg.load != nil {
		say(t).Fatalf("benchtest: RunConformance checks contracts one at a time; WithConcurrencyLevels and WithLoad do not apply")
	}
	w, err := workloads.Conformance()
	if err != nil {
		say(t).Fatalf("benchtest: the builtin conformance suite did not load: %s", linesOf(err))
	}
	return runWorkload(t, cfg, w, workloads.ConformancePath)
}

// reportContract turns one contract's outcome into its subtest's verdict.
func reportContract(t *testing.T, file string, out runner.Outcome) {
	t.Helper()
	c := out.Record.Contract
	say(t).Attr("contract_level", c.Level)
	say(t).Attr("verdict", c.Verdict)
	say(t).Attr("rule", c.Rule)
	msg := c.Evidence
	switch {
	case len(out.Record.Quality.Issues) > 0:
		msg = out.Record.Quality.Issues[0]
	case len(out.Record.Quality.Notes) > 0:
		msg = out.Record.Quality.Notes[0]
	}
	evidence := presented(present.Evidence(msg))
	switch {
	case c.Failing:
		say(t).Errorf("%s: case %q: %s", file, c.Name, evidence)
	case contract.Verdict(c.Verdict) == contract.Fail:
		say(t).Logf("benchtest: warning (%s, does not fail the run): %s", c.Level, evidence)
	case contract.Verdict(c.Verdict) == contract.Skip:
		say(t).Skipf("benchtest: %s", evidence)
	case contract.Verdict(c.Verdict) == contract.Unsupported:
		say(t).Logf("benchtest: unsupported (%s, does not fail the run): %s", c.Level, evidence)
	default:
		say(t).Logf("%s (%s): holds: %s", c.Name, c.Level, presented(present.Evidence(c.Evidence)))
	}
}
