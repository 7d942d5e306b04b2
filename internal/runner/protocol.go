package runner

import (
	"context"
	"math"
	"time"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/conformance"
	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// StrictContracts marks every protocol contract of w strict: a SHOULD
// contract that fails then fails the run (benchserve conformance
// --strict, benchtest.ConformanceStrict). Call it before Start.
func StrictContracts(w *workloads.Workload) {
	for i := range w.Cases {
		if p := w.Cases[i].Protocol; p != nil {
			cp := *p
			cp.Strict = true
			w.Cases[i].Protocol = &cp
		}
	}
}

// runContract runs case c, a protocol contract (c.Protocol set), with
// conformance.Run and records it: the record's Contract holds the
// verdict; the record is OK unless the verdict fails the run
// (contract.Failing, or a MUST not checked because the server went
// away), and its issue is then the failure's message. A
// SHOULD or MAY that failed without failing the run is a note. Timing
// fields are null (NaN): a contract is not a latency measurement, except
// E2EL, the time its requests took.
func (r *Runner) runContract(ctx context.Context, w *workloads.Workload, c workloads.Case, rep int, cacheReset *results.CacheReset) Outcome {
	spec := c.Protocol
	in := conformance.Input{Protocol: spec, Messages: c.Messages, MaxTokens: c.EffectiveMaxTokens(),
		EnableThinking: c.EnableThinking, ExtraBody: c.ExtraBody}
	if c.PolicyTimeoutMS != nil && *c.PolicyTimeoutMS > 0 {
		in.Timeout = time.Duration(*c.PolicyTimeoutMS * float64(time.Millisecond))
	}
	started := time.Now()
	out := conformance.Run(ctx, conformance.Target{Sender: sender{r.client}, Model: r.model, ModelFound: r.cfg.Model == "", Health: &r.health}, in)
	msg := out.Message(c.ID, spec)
	failing := contract.Failing(contract.Level(spec.Level), out.Verdict, spec.Strict)
	if out.NotChecked && contract.Failing(contract.Level(spec.Level), contract.Fail, spec.Strict) {
		// The server went away before this contract was checked: the run
		// cannot say a MUST (or a strict SHOULD) holds, whichever
		// contract met the loss.
		failing = true
	}
	rule := contract.Rules[contract.Kind(spec.Check)]
	con := &results.Contract{Name: c.ID, Level: spec.Level, Check: spec.Check, Verdict: string(out.Verdict),
		Failing: failing, Rule: rule.Text, Reference: rule.Ref, Evidence: out.Evidence}
	if out.Verdict == contract.Fail {
		con.Sent, con.Received = out.Sent, out.Received
	}
	nan := math.NaN()
	e2e := float64(out.Elapsed) / float64(time.Millisecond)
	a := assembly{
		w: w, c: c, rep: rep, cacheReset: cacheReset, started: started, res: out.Stream,
		policy: policy(c.PolicyTimeoutMS, false, e2e),
		metrics: results.Metrics{TTFTms: nan, TPOTms: nan, GenTPS: nan, PromptTPS: nan, E2ELms: e2e,
			DecodeTimingNote: "a protocol contract: its requests are checked, not timed"},
		contract: con,
	}
	if failing {
		a.issues = []checks.Issue{{Check: "protocol." + string(spec.Check), Message: msg}}
	} else if out.Verdict != contract.Pass {
		a.notes = []string{msg}
	}
	return r.assemble(a)
}

// sender is the engine's client as the conformance package's Sender: a
// contract's requests go out through the run's one HTTP policy.
type sender struct{ c *stream.Client }

func (s sender) Stream(ctx context.Context, req stream.Request) (*stream.Result, error) {
	return s.c.ChatStream(ctx, req)
}

func (s sender) Do(ctx context.Context, method, path string, body []byte, key *string, limit int64) (stream.Exchange, error) {
	return s.c.Do(ctx, method, path, body, key, limit)
}

// DoAs sends a body of another Content-Type (conformance's TypedSender).
func (s sender) DoAs(ctx context.Context, method, path string, body []byte, contentType string, key *string, limit int64) (stream.Exchange, error) {
	return s.c.DoAs(ctx, method, path, body, contentType, key, limit)
}
