package runner

import (
	"context"
	"math"
	"time"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/conformance"
	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/resultio"
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
// (contract.Failing), and its issue is then the failure's message. A
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
	rule := contract.Rules[contract.Kind(spec.Check)]
	con := &results.Contract{Name: c.ID, Level: spec.Level, Check: spec.Check, Verdict: string(out.Verdict),
		Failing: failing, Rule: rule.Text, Reference: rule.Ref, Evidence: out.Evidence}
	if out.Verdict == contract.Fail {
		con.Sent, con.Received = out.Sent, out.Received
	}
	nan := math.NaN()
	rec := results.Record{
		RunID: r.runID, Timestamp: r.stamp, StartedAt: resultio.ISOTimestamp(started),
		Workload: w.Name, CaseID: c.ID, Repetition: rep, Tags: append([]string{}, c.Tags...),
		ModelID: r.model, Runtime: r.runtime, Hardware: r.hardware,
		Request: results.RequestInfo{MaxTokens: c.EffectiveMaxTokens(), EnableThinking: c.EnableThinking,
			ExtraBody: c.ExtraBody, ExtraBodyJSON: c.ExtraBodyJSON, MessageCount: len(c.Messages)},
		Policy:     policy(c.PolicyTimeoutMS, false, float64(out.Elapsed)/float64(time.Millisecond)),
		CacheReset: results.CacheReset{Attempted: false},
		Metrics: results.Metrics{TTFTms: nan, TPOTms: nan, GenTPS: nan, PromptTPS: nan,
			E2ELms:           float64(out.Elapsed) / float64(time.Millisecond),
			DecodeTimingNote: "a protocol contract: its requests are checked, not timed"},
		Quality:  results.Quality{OK: !failing, Issues: []string{}},
		OK:       !failing,
		Contract: con,
	}
	if rec.Request.ExtraBody == nil {
		rec.Request.ExtraBody = map[string]any{}
	}
	if cacheReset != nil {
		rec.CacheReset = *cacheReset
	}
	if failing {
		rec.Quality.Issues = append(rec.Quality.Issues, msg)
	} else if out.Verdict != contract.Pass {
		rec.Quality.Notes = append(rec.Quality.Notes, msg)
	}
	if res := out.Stream; res != nil {
		rec.Metrics.PromptTokens, rec.Metrics.CompletionTokens = res.PromptTokens, res.CompletionTokens
		rec.Metrics.UsagePresent, rec.Metrics.TokenChunks = res.Usage != nil, res.TokenChunks
		rec.Quality.ContentChars = len([]rune(res.Content))
		rec.Quality.ContentPreview = truncateRunes(res.Content, PreviewChars)
		if res.FinishReason != "" {
			fr := res.FinishReason
			rec.Quality.FinishReason = &fr
		}
		rec.ToolCalls = toolSummary(res)
	}
	if r.secrets != nil {
		for _, s := range []*string{&con.Evidence, &con.Sent, &con.Received} {
			*s = r.secrets.Replace(*s)
		}
		for i := range rec.Quality.Issues {
			rec.Quality.Issues[i] = r.secrets.Replace(rec.Quality.Issues[i])
		}
		for i := range rec.Quality.Notes {
			rec.Quality.Notes[i] = r.secrets.Replace(rec.Quality.Notes[i])
		}
	}
	o := Outcome{Record: rec, Result: out.Stream}
	if failing {
		o.Issues = []checks.Issue{{Check: "protocol." + string(spec.Check), Message: rec.Quality.Issues[0]}}
	}
	return o
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
