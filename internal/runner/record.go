package runner

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// assembly is what one request of a case produced, before it is a
// record: the one shape both an ordinary case (runCase) and a protocol
// contract (runContract) hand to assemble.
type assembly struct {
	w          *workloads.Workload
	c          workloads.Case
	rep        int
	cacheReset *results.CacheReset
	// started is when the request was sent.
	started time.Time
	// res is the stream's measurement (nil when nothing was measured:
	// a contract that sent no stream); err the request error.
	res *stream.Result
	err error
	// issues are the failed checks (a failed contract's one issue), with
	// the consequence prefix already applied.
	issues []checks.Issue
	// metrics and policy are the record's blocks, filled by the caller
	// (a contract's timings are null).
	metrics results.Metrics
	policy  results.Policy
	// notes are quality notes; contract the contract block, nil for an
	// ordinary case.
	notes    []string
	contract *results.Contract
	// inputs is the number of inputs an embeddings request sent (0 for
	// every other endpoint).
	inputs int
}

// assemble is the one record assembly (reference:
// _build_workload_record): the run's identity, the request, the answer
// as measured (content counted in code points, once), the quality block,
// the verdict (decide) and the redaction of secrets, for every kind of
// case.
func (r *Runner) assemble(a assembly) Outcome {
	c := a.c
	rec := results.Record{
		RunID:      r.runID,
		Timestamp:  r.stamp,
		StartedAt:  resultio.ISOTimestamp(a.started),
		Workload:   a.w.Name,
		CaseID:     c.ID,
		Repetition: a.rep,
		Tags:       append([]string{}, c.Tags...),
		ModelID:    r.model,
		Runtime:    r.runtime,
		Hardware:   r.hardware,
		Request: results.RequestInfo{
			MaxTokens:      c.EffectiveMaxTokens(),
			EnableThinking: c.EnableThinking,
			ExtraBody:      c.ExtraBody,
			ExtraBodyJSON:  c.ExtraBodyJSON,
			MessageCount:   len(c.Messages),
			Endpoint:       recordEndpoint(c.Endpoint),
			Inputs:         a.inputs,
		},
		Policy:     a.policy,
		CacheReset: results.CacheReset{Attempted: false},
		Metrics:    a.metrics,
		Quality:    results.Quality{Issues: []string{}},
		Contract:   a.contract,
		Requested:  c.Requested,
	}
	if a.res != nil {
		rec.Request.ID, rec.Request.ServerID = a.res.SentRequestID, a.res.HeaderRequestID
		if rec.Request.ServerID == "" {
			rec.Request.ServerID = a.res.RequestID
		}
	}
	if rec.Request.ExtraBody == nil {
		rec.Request.ExtraBody = map[string]any{}
	}
	if c.RequestPath != "" {
		p := c.RequestPath
		rec.Request.RequestPath = &p
	}
	if a.cacheReset != nil {
		rec.CacheReset = *a.cacheReset
	}
	if a.err != nil {
		rec.Error = a.err.Error()
		rec.Quality.Issues = append(rec.Quality.Issues, "request error: "+rec.Error)
	}
	for _, is := range a.issues {
		rec.Quality.Issues = append(rec.Quality.Issues, is.Message)
	}
	rec.Quality.OK = len(rec.Quality.Issues) == 0
	rec.OK = rec.Quality.OK
	rec.Quality.Notes = append(rec.Quality.Notes, a.notes...)
	if res := a.res; res != nil {
		r.answer(&rec, res, a.contract == nil)
	}
	rec.Outcome, rec.ErrorKind = decide(a.err, a.issues, a.res)
	out := Outcome{Record: rec, Result: a.res, Issues: a.issues, Err: a.err}
	r.redact(&out)
	return out
}

// answer fills what the record says about the answer res streamed:
// tokens, content (counted in code points), finish reason and tool calls;
// full adds what only an ordinary case records (reasoning, refusal,
// choices, the whole content with IncludeContent).
func (r *Runner) answer(rec *results.Record, res *stream.Result, full bool) {
	rec.Metrics.PromptTokens, rec.Metrics.CompletionTokens = res.PromptTokens, res.CompletionTokens
	rec.Metrics.UsagePresent, rec.Metrics.TokenChunks = res.Usage != nil, res.TokenChunks
	q := &rec.Quality
	q.ContentChars = utf8.RuneCountInString(res.Content)
	q.ContentPreview = py.Head(res.Content, PreviewChars)
	if res.FinishReason != "" {
		fr := res.FinishReason
		q.FinishReason = &fr
	}
	rec.ToolCalls = toolSummary(res)
	if !full {
		return
	}
	q.ContentTruncated = res.ContentTruncated
	q.ReasoningChars = utf8.RuneCountInString(res.Reasoning)
	q.ReasoningChunks = res.ReasoningChunks
	q.ReasoningTokens = reasoningTokens(res.Usage)
	q.Refusal = res.Refusal
	limit := r.cfg.MaxContentChars
	if limit <= 0 {
		limit = 1_000_000
	}
	if r.cfg.IncludeContent {
		content := py.Head(res.Content, limit)
		q.Content = &content
		if res.Reasoning != "" {
			reasoning := py.Head(res.Reasoning, limit)
			q.Reasoning = &reasoning
		}
	}
	for _, ch := range res.Choices {
		qc := results.Choice{
			Index: ch.Index, ContentChars: utf8.RuneCountInString(ch.Content),
			ReasoningChars: utf8.RuneCountInString(ch.Reasoning), Refusal: ch.Refusal,
			ToolCalls: summarizeTools(ch.ToolCalls),
		}
		if ch.FinishReason != "" {
			fr := ch.FinishReason
			qc.FinishReason = &fr
		}
		if r.cfg.IncludeContent {
			content := py.Head(ch.Content, limit)
			qc.Content = &content
		}
		q.Choices = append(q.Choices, qc)
	}
}

// decide is the one verdict of a request (results.Outcome): error when
// the request failed (its kind, loadgen.Classify), pass when no check
// failed, capped when the only failures are the basic validation's
// "Truncated (finish_reason=length)" (the case's checks state no
// finish_reason, or allow "length"), else fail of kind quality. A
// finish_reason check that excludes "length" reports its own issue, so
// such a case's capped answer fails.
func decide(err error, issues []checks.Issue, res *stream.Result) (results.Outcome, results.ErrorKind) {
	switch {
	case err != nil:
		kind := loadgen.Classify(err)
		if kind == "" {
			kind = results.KindTransport
		}
		return results.OutcomeError, kind
	case len(issues) == 0:
		return results.OutcomePass, ""
	}
	for _, is := range issues {
		if is.Check != checks.CheckResponse || !strings.Contains(is.Message, truncatedIssue) {
			return results.OutcomeFail, results.KindQuality
		}
	}
	if res == nil {
		return results.OutcomeFail, results.KindQuality
	}
	return results.OutcomeCapped, ""
}

// truncatedIssue is the basic validation's issue for an answer ended by
// max_tokens (checks.Validate), also with a "choice N: " prefix.
const truncatedIssue = "Truncated (finish_reason=length)"

// redact replaces the API key and URL secrets in everything of out a
// server may have echoed them into (its error message, issues, notes, a
// contract's evidence): never into a record, a log or a file.
func (r *Runner) redact(out *Outcome) {
	if r.secrets == nil {
		return
	}
	rec := &out.Record
	rec.Error = r.secrets.Replace(rec.Error)
	for _, list := range [][]string{rec.Quality.Issues, rec.Quality.Notes} {
		for i := range list {
			list[i] = r.secrets.Replace(list[i])
		}
	}
	if con := rec.Contract; con != nil {
		for _, s := range []*string{&con.Evidence, &con.Sent, &con.Received} {
			*s = r.secrets.Replace(*s)
		}
	}
	for i := range out.Issues {
		out.Issues[i].Message = r.secrets.Replace(out.Issues[i].Message)
	}
	if out.Err != nil {
		out.Err = &redactedError{err: out.Err, msg: r.secrets.Replace(out.Err.Error())}
	}
}
