package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/conformance"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/scrape"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// PreviewChars is the length of quality.content_preview in code points,
// as in the reference.
const PreviewChars = 240

// Config says where and how to run. The zero value is not usable: URL is
// required.
type Config struct {
	// URL is the server root, e.g. "http://127.0.0.1:8080".
	URL string
	// Model is the model id to request; "" means the first model listed by
	// /v1/models (an error when there is none).
	Model string
	// APIKey, when set, is sent as a Bearer token on every request.
	APIKey string
	// HTTP is the client for all requests; nil means a fresh client whose
	// only timeout is RequestTimeout.
	HTTP *http.Client
	// RequestTimeout is the transport safety timeout of one request
	// (reference --request-timeout-s). The one convention of benchserve:
	// 0 means DefaultRequestTimeout, a negative value means none.
	RequestTimeout time.Duration
	// NoScrape disables the /metrics scrapes around each case.
	NoScrape bool
	// IncludeContent stores the whole content in each record.
	IncludeContent bool
	// Conns is how many connections the runner's own HTTP client keeps
	// open for reuse (the most cases run at once); 0 means net/http's 2.
	Conns int
	// Warn, when set, receives notes about the run as they happen (a side
	// request that hangs and is given up). The doors print them.
	Warn func(msg string)
	// RunID, when set, is the run's id instead of a new random one: the
	// shards of one run spread over several processes share it (--run-id)
	// so their payloads can be merged.
	RunID string
	// MaxContentChars bounds the content kept per record with
	// IncludeContent (code points); 0 means 1,000,000.
	MaxContentChars int
	// SideRequestTimeout bounds each side request (the /metrics scrapes
	// and the /v1/status read around a case or a sweep round); 0 means
	// SideRequestTimeout, the package default.
	SideRequestTimeout time.Duration
}

// redactedError is an error whose text had secrets replaced; errors.Is
// and errors.As still see the original.
type redactedError struct {
	err error
	msg string
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// DefaultRequestTimeout is the transport safety timeout of one request
// when Config.RequestTimeout is 0 (the reference's --request-timeout-s
// default).
const DefaultRequestTimeout = 300 * time.Second

// requestTimeout applies the timeout convention: 0 → the default,
// negative → none (0 for http.Client).
func (c Config) requestTimeout() time.Duration {
	switch {
	case c.RequestTimeout == 0:
		return DefaultRequestTimeout
	case c.RequestTimeout < 0:
		return 0
	}
	return c.RequestTimeout
}

// Runner runs cases of one workload against one server. Create it with
// New; it is safe for concurrent use by several goroutines running
// different cases.
type Runner struct {
	cfg Config
	// secrets redacts the API key and URL secrets from server messages.
	secrets *strings.Replacer
	// scrapeOff and statusOff: a side request hung once, so it is no
	// longer sent.
	scrapeOff, statusOff atomic.Bool
	client               *stream.Client
	prober               *serverinfo.Prober
	// side is hc without the connect retry, for every side request.
	side     *http.Client
	hc       *http.Client
	model    string
	runtime  results.Runtime
	hardware results.Hardware
	runID    string
	stamp    string
	owned    bool
	// health is shared by the protocol contracts the Runner checks: once
	// the server went away the rest are a skip saying so.
	health conformance.Health
}

// Close releases the idle connections of the HTTP client the Runner
// created (not of a client passed in Config.HTTP). The Runner must not be
// used afterwards.
func (r *Runner) Close() {
	if r.owned {
		r.hc.CloseIdleConnections()
	}
}

// New probes the server (runtime detection, model resolution) and returns
// a Runner. It fails when URL is empty or no model can be determined.
func New(ctx context.Context, cfg Config) (*Runner, error) {
	if cfg.URL == "" {
		return nil, errors.New("runner: no server URL")
	}
	base, err := serverinfo.NormalizeBaseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	cfg.URL = base
	hc := cfg.HTTP
	owned := false
	if hc == nil {
		// An own transport, so Close can release its idle connections
		// without touching http.DefaultTransport's.
		hc = NewHTTPClient(cfg.requestTimeout(), cfg.Conns)
		owned = true
	}
	r := &Runner{
		cfg:      cfg,
		hc:       hc,
		client:   &stream.Client{BaseURL: cfg.URL, APIKey: cfg.APIKey, HTTP: hc},
		side:     withoutRetry(hc),
		owned:    owned,
		hardware: serverinfo.Hardware(),
		runID:    cmp.Or(cfg.RunID, resultio.NewRunID()),
		secrets:  serverinfo.SecretReplacer(cfg.URL, cfg.APIKey),
		stamp:    resultio.ISOTimestamp(time.Now()),
	}
	r.prober = &serverinfo.Prober{BaseURL: cfg.URL, APIKey: cfg.APIKey, HTTP: r.side}
	r.runtime = r.prober.DetectModel(ctx, cfg.Model)
	r.model = cfg.Model
	if r.model == "" {
		r.model = r.runtime.ModelID
	}
	if r.model == "" {
		err := r.modelError(ctx)
		r.Close()
		if r.secrets != nil {
			err = &redactedError{err: err, msg: r.secrets.Replace(err.Error())}
		}
		return nil, err
	}
	return r, nil
}

// NewHTTPClient is the one HTTP policy of a run: the client every
// benchserve run uses unless one is given (Config.HTTP). Chat requests use
// it as is; the side requests (metadata probes, /metrics scrapes,
// /v1/status, cache resets) use the same client without the connect retry,
// since they are best effort and bounded by SideRequestTimeout; every
// request carries the API key through openai.Authorize. The client has
// its own transport keeping conns idle connections per host
// (stream.NewTransport; 0 means net/http's 2), retries a request whose
// connection could not be made for stream.DefaultRetryWindow (a server
// that restarts or answers a moment late does not fail the rest of a run
// in milliseconds), sends a request once more on a fresh connection when
// the server had closed the reused connection it went out on before
// answering (stream.RetryReused, counted in the record's
// metrics.connection_retries; nothing else is retried once bytes were
// sent), has timeout
// as the whole request's limit (0: none), and follows no redirects (a
// POST must not be silently turned into a GET).
func NewHTTPClient(timeout time.Duration, conns int) *http.Client {
	return &http.Client{
		Timeout:       timeout,
		Transport:     stream.RetryConnect(stream.RetryReused(stream.NewTransport(conns)), stream.DefaultRetryWindow),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// withoutRetry is hc without the connection retry of NewHTTPClient: the
// metadata probes and side requests are best effort, and a server that is
// down must fail New at once, not after a retry window per probe.
func withoutRetry(hc *http.Client) *http.Client {
	rt, ok := hc.Transport.(interface{ Unwrap() http.RoundTripper })
	if !ok {
		return hc
	}
	c := *hc
	c.Transport = rt.Unwrap()
	return &c
}

// HTTP is the client the runner sends every request with.
func (r *Runner) HTTP() *http.Client { return r.hc }

// URL is the normalized server root the runner talks to.
func (r *Runner) URL() string { return r.cfg.URL }

// Hardware is the fingerprint of the machine running the client.
func (r *Runner) Hardware() results.Hardware { return r.hardware }

// modelError says why no model id could be determined, in the one
// wording every door uses: the server is unreachable, it refused the
// request (a 401 names the API key), or it lists no model.
func (r *Runner) modelError(ctx context.Context) error {
	shown := serverinfo.RedactURL(r.cfg.URL)
	_, err := r.prober.Models(ctx)
	var reach *serverinfo.UnreachableError
	var st *serverinfo.StatusError
	switch {
	case errors.As(err, &reach):
		return &unreachableError{msg: fmt.Sprintf("runner: cannot reach a server at %s: %v", shown, reach.Err), err: reach.Err}
	case errors.As(err, &st) && (st.StatusCode == 401 || st.StatusCode == 403):
		return fmt.Errorf("runner: the server at %s refused the request: HTTP %d from GET /v1/models: %s; check the API key (--api-key or BENCHSERVE_API_KEY)", shown, st.StatusCode, orNone(st.Message))
	case errors.As(err, &st):
		return fmt.Errorf("runner: could not list the models at %s: HTTP %d from GET /v1/models: %s; pass one (--model or BENCHSERVE_MODEL)", shown, st.StatusCode, orNone(st.Message))
	}
	return fmt.Errorf("runner: could not determine the model id from %s/v1/models; pass one (--model or BENCHSERVE_MODEL)", shown)
}

// ErrUnreachable is wrapped by New's error when nothing answered at the
// server's address (connection refused, no route, DNS): the doors add how
// to start a server. Test with errors.Is.
var ErrUnreachable = errors.New("server unreachable")

// unreachableError is New's error for a server that did not answer.
type unreachableError struct {
	msg string
	err error
}

func (e *unreachableError) Error() string   { return e.msg }
func (e *unreachableError) Unwrap() []error { return []error{ErrUnreachable, e.err} }

func orNone(s string) string {
	if s == "" {
		return "(no message)"
	}
	return s
}

// Model is the model id requests are sent for.
func (r *Runner) Model() string { return r.model }

// Runtime is the detected server runtime.
func (r *Runner) Runtime() results.Runtime { return r.runtime }

// RunID is this run's 8-hex-digit id.
func (r *Runner) RunID() string { return r.runID }

// Timestamp is the run's start time, ISO 8601 in UTC.
func (r *Runner) Timestamp() string { return r.stamp }

// ClearCache resets the server's caches (DELETE /v1/cache) and returns the
// event to record.
func (r *Runner) ClearCache(ctx context.Context) results.CacheReset {
	return r.prober.ClearCache(ctx)
}

// Outcome is a Record together with the raw measurement it came from.
type Outcome struct {
	Record results.Record
	// Result is the stream measurement (partial when Err is set).
	Result *stream.Result
	// Issues are the failed checks, in the order of Record.Quality.Issues
	// (without the leading "request error" issue, which Err carries); with
	// a request error each starts with ConsequencePrefix, and with several
	// choices with "choice N: ".
	Issues []checks.Issue
	// Err is the request error, nil when the request succeeded.
	Err error
}

// RunCase runs one case once (repetition rep, 0-based) and returns its
// outcome (reference: run_workload_case). cacheReset is the before-case
// reset event to record, or nil. It never returns an error: failures are
// recorded in the outcome, so no measurement is lost.
func (r *Runner) RunCase(ctx context.Context, w *workloads.Workload, c workloads.Case, rep int, cacheReset *results.CacheReset) Outcome {
	return r.runCase(ctx, w, c, rep, cacheReset, true)
}

// runCase is RunCase; without side requests (a load run, where
// concurrent requests make per-request counter deltas meaningless and the
// extra requests would load the server being measured) the cache
// counters are null and the memory figures come from the runtime probe.
func (r *Runner) runCase(ctx context.Context, w *workloads.Workload, c workloads.Case, rep int, cacheReset *results.CacheReset, sideRequests bool) Outcome {
	if c.Protocol != nil {
		return r.runContract(ctx, w, c, rep, cacheReset)
	}
	req := CaseRequest(r.model, c)
	side := r.sideTimeout()
	if req.Timeout > 0 && req.Timeout < side {
		side = req.Timeout
	}
	var before, after scrape.Counters
	var status map[string]any
	if sideRequests {
		before = r.scrapeWithin(ctx, side)
	}
	res, inputs, err := r.send(ctx, c, req)
	if res == nil {
		res = &stream.Result{StartedAt: time.Now()}
	}
	if sideRequests {
		after = r.scrapeWithin(ctx, side)
		status = r.statusWithin(ctx, side)
	}

	statusCode := responseStatus(res, err)
	issues := caseIssues(c, statusCode, res)
	thinkingNote := ""
	if c.EnableThinking != nil && !*c.EnableThinking && hasReasoning(res) {
		thinkingNote = ThinkingIgnored(r.runtime.Server, utf8.RuneCountInString(res.Reasoning))
		for i := range issues {
			if issues[i].Check == checks.CheckResponse && strings.Contains(issues[i].Message, "reasoning only") {
				issues[i].Message += "; " + thinkingNote
			}
		}
	}
	errText := ""
	if err != nil {
		errText = err.Error()
		// One root cause first: the server's reason, then the check
		// failures that follow from the failed request, marked so.
		for i := range issues {
			issues[i].Message = ConsequencePrefix + issues[i].Message
		}
	}
	issueText := make([]string, 0, len(issues)+1)
	if err != nil {
		issueText = append(issueText, "request error: "+errText)
	}
	for _, is := range issues {
		issueText = append(issueText, is.Message)
	}
	ok := len(issueText) == 0

	rec := results.Record{
		RunID:      r.runID,
		Timestamp:  r.stamp,
		StartedAt:  resultio.ISOTimestamp(res.StartedAt),
		Workload:   w.Name,
		CaseID:     c.ID,
		Repetition: rep,
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
			Inputs:         inputs,
		},
		Policy:     policy(c.PolicyTimeoutMS, err != nil, res.E2ELms),
		CacheReset: results.CacheReset{Attempted: false},
		Metrics: results.Metrics{
			TTFTms:           res.TTFTms,
			TPOTms:           res.TPOTms,
			E2ELms:           res.E2ELms,
			GenTPS:           res.GenTPS,
			PromptTPS:        res.PromptTPS,
			PromptTokens:     res.PromptTokens,
			CompletionTokens: res.CompletionTokens,
			CacheHits:        scrape.Delta(before.Hits, after.Hits),
			CacheMisses:      scrape.Delta(before.Misses, after.Misses),
			TokensSaved:      scrape.Delta(before.TokensSaved, after.TokensSaved),
			CachedTokens:     cachedTokens(res.Usage),
			Metal:            serverinfo.ParseStatus(status),
			ITLms:            res.ITLms,
			ITLCount:         res.Gaps.Count,
			ITLKept:          len(res.ITLms),
			ITL:              itlStats(res),
			UsagePresent:     res.Usage != nil,
			TokenChunks:      res.TokenChunks,
			CacheDialect:     after.Dialect,
			DecodeTiming:     res.DecodeTiming,
			DecodeTimingNote: res.DecodeNote,
			DecodeMethod:     res.DecodeMethod,
			DecodeTokens:     measured(res.DecodeTokens, res.DecodeMethod != ""),
			RefTPOTms:        measured(res.RefTPOTms, !math.IsNaN(res.RefTPOTms)),
			RefGenTPS:        measured(res.RefGenTPS, !math.IsNaN(res.RefGenTPS)),
		},
		Quality: results.Quality{
			OK:               ok,
			Issues:           issueText,
			ContentChars:     utf8.RuneCountInString(res.Content),
			ContentTruncated: res.ContentTruncated,
			ContentPreview:   truncateRunes(res.Content, PreviewChars),
			ReasoningChars:   utf8.RuneCountInString(res.Reasoning),
			ReasoningChunks:  res.ReasoningChunks,
			ReasoningTokens:  reasoningTokens(res.Usage),
			Refusal:          res.Refusal,
		},
		ToolCalls: toolSummary(res),
		OK:        ok,
		Error:     errText,
		Requested: c.Requested,
	}
	rec.Metrics.ConnectionRetries = res.ConnectionRetries
	if rec.Request.ExtraBody == nil {
		rec.Request.ExtraBody = map[string]any{}
	}
	if c.RequestPath != "" {
		p := c.RequestPath
		rec.Request.RequestPath = &p
	}
	if res.FinishReason != "" {
		fr := res.FinishReason
		rec.Quality.FinishReason = &fr
	}
	if res.HasOutput {
		ttfo := res.TTFOms
		rec.Metrics.TTFOms = &ttfo
	}
	if cacheReset != nil {
		rec.CacheReset = *cacheReset
	}
	if thinkingNote != "" {
		rec.Quality.Notes = append(rec.Quality.Notes, thinkingNote)
	}
	limit := r.cfg.MaxContentChars
	if limit <= 0 {
		limit = 1_000_000
	}
	if r.cfg.IncludeContent {
		content := truncateRunes(res.Content, limit)
		rec.Quality.Content = &content
		if res.Reasoning != "" {
			reasoning := truncateRunes(res.Reasoning, limit)
			rec.Quality.Reasoning = &reasoning
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
			content := truncateRunes(ch.Content, limit)
			qc.Content = &content
		}
		rec.Quality.Choices = append(rec.Quality.Choices, qc)
	}
	if r.secrets != nil {
		// A server may echo the API key (or the URL's password) in its
		// error message: never into a record, a log or a file.
		rec.Error = r.secrets.Replace(rec.Error)
		for i := range rec.Quality.Issues {
			rec.Quality.Issues[i] = r.secrets.Replace(rec.Quality.Issues[i])
		}
		for i := range issues {
			issues[i].Message = r.secrets.Replace(issues[i].Message)
		}
		if err != nil {
			err = &redactedError{err: err, msg: r.secrets.Replace(err.Error())}
		}
	}
	return Outcome{Record: rec, Result: res, Issues: issues, Err: err}
}

// ConsequencePrefix marks a check failure that follows from a failed
// request (no content, no finish reason, …): the request error is the
// record's first issue and these come after it, so the root cause is
// read first. The text after the prefix is the reference's issue text.
const ConsequencePrefix = "(because the request failed) "

// evaluateChoices runs the checks on every choice of res: one choice is
// checked as the reference does (issue texts unchanged); with several
// (n > 1) each choice is checked and its issues start with "choice N: ".
func evaluateChoices(spec *checks.Spec, status int, res *stream.Result) []checks.Issue {
	if len(res.Choices) == 0 {
		return checks.Evaluate(spec, checks.Response{
			StatusCode: status, FinishReason: res.FinishReason, Content: res.Content,
			ToolCalls: res.ToolCalls, Reasoning: res.Reasoning, Refusal: res.Refusal,
		})
	}
	var issues []checks.Issue
	for _, ch := range res.Choices {
		for _, is := range checks.Evaluate(spec, checks.Response{
			StatusCode: status, FinishReason: ch.FinishReason, Content: ch.Content,
			ToolCalls: ch.ToolCalls, Reasoning: ch.Reasoning, Refusal: ch.Refusal,
		}) {
			is.Message = fmt.Sprintf("choice %d: %s", ch.Index, is.Message)
			issues = append(issues, is)
		}
	}
	return issues
}

func hasReasoning(res *stream.Result) bool {
	if res.Reasoning != "" {
		return true
	}
	for _, ch := range res.Choices {
		if ch.Reasoning != "" {
			return true
		}
	}
	return false
}

// ThinkingIgnored is the note recorded when a case sent enable_thinking
// false and reasoning arrived anyway (chars code points of it): the server
// ignored the flag, and what the detected runtime (results.Runtime.Server)
// takes instead: Ollama reasoning_effort "none", vLLM and SGLang
// chat_template_kwargs {"enable_thinking": false}; for another or an
// unknown server, both.
func ThinkingIgnored(server string, chars int) string {
	head := fmt.Sprintf("enable_thinking=false was sent but %d chars of reasoning arrived: the server ignored it", chars)
	switch server {
	case "ollama":
		return head + `; Ollama turns thinking off with extra_body {"reasoning_effort": "none"}`
	case "vllm", "sglang", "vllm-mlx":
		return head + `; ` + server + ` turns thinking off with extra_body {"chat_template_kwargs": {"enable_thinking": false}}`
	}
	return head + `; Ollama turns thinking off with extra_body {"reasoning_effort": "none"}, vLLM and SGLang with {"chat_template_kwargs": {"enable_thinking": false}}`
}

// reasoningTokens is usage.completion_tokens_details.reasoning_tokens, nil
// when the server did not report it.
func reasoningTokens(u *results.Usage) *int {
	if u == nil || u.CompletionTokensDetails == nil || u.CompletionTokensDetails.ReasoningTokens == nil {
		return nil
	}
	n := *u.CompletionTokensDetails.ReasoningTokens
	return &n
}

// responseStatus is the status the basic validation sees. The reference
// passes 500 for every failed request; benchserve passes the real one: an
// HTTP error's status, 200 for a failure inside a 200 stream (a timeout,
// an error event, a cut connection), and 0 when no response arrived at
// all (connection refused): no HTTP error is invented; the request error
// issue says what happened.
func responseStatus(res *stream.Result, err error) int {
	if err == nil {
		return 200
	}
	var he *stream.HTTPError
	if errors.As(err, &he) {
		return he.StatusCode
	}
	if res != nil {
		return res.StatusCode
	}
	return 0
}

// CaseRequest is the streamed request of case c for model (reference:
// _assemble_case_request_kwargs): its messages, effective max_tokens,
// enable_thinking, extra body, and its policy timeout as the request's
// Timeout.
func CaseRequest(model string, c workloads.Case) stream.Request {
	req := stream.Request{
		Model:          model,
		Messages:       c.Messages,
		MaxTokens:      c.EffectiveMaxTokens(),
		EnableThinking: c.EnableThinking,
		ExtraBody:      c.ExtraBody,
		Endpoint:       c.Endpoint,
	}
	if c.PolicyTimeoutMS != nil && *c.PolicyTimeoutMS > 0 {
		req.Timeout = time.Duration(*c.PolicyTimeoutMS * float64(time.Millisecond))
	}
	return req
}

// policy resolves the record's policy block (reference:
// _compute_within_policy_timeout): within_timeout is nil without a
// timeout, false when the request errored, else e2e <= timeout.
func policy(timeoutMS *float64, errored bool, e2eMS float64) results.Policy {
	p := results.Policy{TimeoutMS: timeoutMS}
	if timeoutMS == nil {
		return p
	}
	within := !errored && e2eMS <= *timeoutMS
	p.WithinTimeout = &within
	return p
}

// toolSummary builds the record's tool_calls block (reference:
// _build_tool_calls_summary); nil when no tool call was streamed.
func toolSummary(res *stream.Result) *results.ToolCallsSummary {
	return summarizeTools(res.ToolCalls)
}

func summarizeTools(calls []results.ToolCall) *results.ToolCallsSummary {
	if len(calls) == 0 {
		return nil
	}
	names := make([]string, len(calls))
	for i, tc := range calls {
		names[i] = tc.Function.Name
	}
	sort.Strings(names)
	return &results.ToolCallsSummary{Count: len(calls), Names: names, Raw: calls}
}

// truncateRunes keeps the first n code points of s (Python's s[:n]).
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// SideRequestTimeout bounds each request the runner makes around a case
// (the /metrics scrapes before and after, the /v1/status read), or the
// case's policy timeout when that is shorter: a server whose /metrics
// hangs costs that case its cache counters (null), never the run.
const SideRequestTimeout = 5 * time.Second

// sideTimeout is Config.SideRequestTimeout or the package default.
func (r *Runner) sideTimeout() time.Duration {
	if r.cfg.SideRequestTimeout > 0 {
		return r.cfg.SideRequestTimeout
	}
	return SideRequestTimeout
}

// scrapeWithin reads the server's prefix-cache counters (scrape.Fetch)
// within limit; the zero Counters (every counter unavailable) when the
// scrape fails, was given up on, or the runner was configured with
// NoScrape.
func (r *Runner) scrapeWithin(ctx context.Context, limit time.Duration) scrape.Counters {
	if r.cfg.NoScrape || r.scrapeOff.Load() {
		return scrape.Counters{}
	}
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	c, err := scrape.Fetch(sctx, r.side, r.cfg.URL, r.cfg.APIKey)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		// A /metrics that hangs would cost every case the side timeout
		// twice: stop reading it, once, and say so.
		if r.scrapeOff.CompareAndSwap(false, true) {
			r.warn(fmt.Sprintf("GET /metrics did not answer within %v: cache counters are not read for the rest of the run (null in the records); --scrape-metrics false (WithoutScrape) skips them", limit))
		}
	}
	return c
}

// statusWithin reads /v1/status within limit, giving up on it for the
// rest of the run (and saying so) when it hangs.
func (r *Runner) statusWithin(ctx context.Context, limit time.Duration) map[string]any {
	if r.statusOff.Load() {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	st := r.prober.Status(sctx)
	if len(st) == 0 && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		if r.statusOff.CompareAndSwap(false, true) {
			r.warn(fmt.Sprintf("GET /v1/status did not answer within %v: memory figures are not read for the rest of the run", limit))
		}
	}
	return st
}

// warn hands a note about the run to Config.Warn, if set.
func (r *Runner) warn(msg string) {
	if r.cfg.Warn != nil {
		r.cfg.Warn(msg)
	}
}

// CountPromptTokens sends a non-streaming max_tokens=1 completion of msgs
// (stream.Client.CountPromptTokens, the one request builder) and returns
// usage.prompt_tokens, 0 on any failure (reference: count_prompt_tokens).
func (r *Runner) CountPromptTokens(ctx context.Context, msgs []results.Message) int {
	n, _ := r.client.CountPromptTokens(ctx, stream.Request{Model: r.model, Messages: msgs})
	return n
}

// itlStats summarizes every chunk gap of res, kept or not (nil without
// gaps): exact percentiles while every gap was kept, else estimated from
// the stream's bounded histogram within stream.GapRelativeError.
func itlStats(res *stream.Result) *results.ITLStats {
	if res.Gaps.Count == 0 {
		return nil
	}
	st := &results.ITLStats{MinMS: res.Gaps.MinMS, MaxMS: res.Gaps.MaxMS, MeanMS: res.Gaps.MeanMS(),
		P50MS: res.ITLPercentile(50), P95MS: res.ITLPercentile(95), P99MS: res.ITLPercentile(99)}
	if res.Gaps.Count > len(res.ITLms) {
		st.Estimated, st.RelativeError = true, stream.GapRelativeError
	}
	return st
}

// measured is &x when ok, else nil (written as null).
func measured(x float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &x
}
