package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/conformance"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/scrape"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/internal/tokens"
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
	// Note, when set, receives what is informational, not a problem (the
	// token calibration's numbers): the doors print it as a note, not a
	// warning. Unset, notes go to Warn, so they stay visible.
	Note func(msg string)
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
	// NoCalibration leaves a random or prefix_repetition generator's
	// prompts counted by words (token_counting "words"): no calibration
	// requests before the run (Start calibrates otherwise).
	NoCalibration bool
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
	// cal is the calibration of generated prompts (Calibrate), measured
	// once (calDone) under calMu; nil when it failed.
	calMu   sync.Mutex
	calDone bool
	cal     *tokens.Calibration
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
		runID:    cmp.Or(cfg.RunID, newRunID()),
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
	case errors.As(err, &st) && st.StatusCode == 404:
		// Most often a URL with a path (…/v1, …/foo): a model passed
		// then would meet the same 404 on every request.
		return fmt.Errorf("runner: could not list the models at %s: HTTP 404 from GET /v1/models: %s; give the server's root as the URL, http://host:port (benchserve adds /v1/…), or pass the model (--model or BENCHSERVE_MODEL) if the server lists none", shown, orNone(st.Message))
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

	issues := caseIssues(c, responseStatus(res, err), res)
	var notes []string
	if c.EnableThinking != nil && !*c.EnableThinking && hasReasoning(res) {
		note := ThinkingIgnored(r.runtime.Server, utf8.RuneCountInString(res.Reasoning))
		notes = append(notes, note)
		for i := range issues {
			if issues[i].Check == checks.CheckResponse && strings.Contains(issues[i].Message, "reasoning only") {
				issues[i].Message += "; " + note
			}
		}
	}
	if err != nil {
		// One root cause first: the server's reason, then the check
		// failures that follow from the failed request, marked so.
		for i := range issues {
			issues[i].Message = ConsequencePrefix + issues[i].Message
		}
	}
	m := results.Metrics{
		TTFTms:           res.TTFTms,
		TPOTms:           res.TPOTms,
		E2ELms:           res.E2ELms,
		GenTPS:           res.GenTPS,
		PromptTPS:        res.PromptTPS,
		CacheHits:        scrape.Delta(before.Hits, after.Hits),
		CacheMisses:      scrape.Delta(before.Misses, after.Misses),
		TokensSaved:      scrape.Delta(before.TokensSaved, after.TokensSaved),
		CachedTokens:     cachedTokens(res.Usage),
		Metal:            serverinfo.ParseStatus(status),
		ITLms:            res.ITLms,
		ITLCount:         res.Gaps.Count,
		ITLKept:          len(res.ITLms),
		ITL:              itlStats(res),
		CacheDialect:     after.Dialect,
		DecodeTiming:     res.DecodeTiming,
		DecodeTimingNote: res.DecodeNote,
		DecodeMethod:     res.DecodeMethod,
		DecodeTokens:     measured(res.DecodeTokens, res.DecodeMethod != ""),
		RefTPOTms:        measured(res.RefTPOTms, !math.IsNaN(res.RefTPOTms)),
		RefGenTPS:        measured(res.RefGenTPS, !math.IsNaN(res.RefGenTPS)),
	}
	m.ConnectionRetries = res.ConnectionRetries
	if res.HasOutput {
		ttfo := res.TTFOms
		m.TTFOms = &ttfo
	}
	return r.assemble(assembly{
		w: w, c: c, rep: rep, cacheReset: cacheReset, started: res.StartedAt,
		res: res, err: err, issues: issues, notes: notes, metrics: m, inputs: inputs,
		policy: policy(c.PolicyTimeoutMS, err != nil, res.E2ELms),
	})
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

// CountPromptTokens sends a non-streaming max_tokens=1 completion of msgs
// (stream.Client.CountPromptTokens, the one request builder) and returns
// usage.prompt_tokens, 0 on any failure (reference: count_prompt_tokens).
func (r *Runner) CountPromptTokens(ctx context.Context, msgs []results.Message) int {
	n, _ := r.client.CountPromptTokens(ctx, stream.Request{Model: r.model, Messages: msgs})
	return n
}
