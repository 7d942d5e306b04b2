package stream

import (
	"net/http"
	"time"

	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// Client streams chat completions from one OpenAI-compatible server. The
// zero value is not usable: BaseURL is required. A Client is safe for
// concurrent use.
type Client struct {
	// BaseURL is the server root, e.g. "http://127.0.0.1:8080" (no /v1).
	BaseURL string
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// HTTP is the client used for requests; nil means a client with no
	// overall timeout (policy timeouts are per request, see Request.Timeout)
	// whose transport retries a request the server closed a reused
	// connection on (RetryReused); a client of the caller's retries only
	// when its transport is wrapped so.
	// Redirects are never followed unless HTTP sets its own CheckRedirect:
	// a 3xx answer to the POST is returned as an *HTTPError naming the
	// Location.
	HTTP *http.Client
	// MaxEventBytes caps one SSE event; 0 means DefaultMaxEventBytes.
	MaxEventBytes int
	// MaxContentBytes caps how much of the streamed text a Result keeps:
	// Content and Reasoning each hold at most this many bytes (cut on a
	// rune boundary) and the rest is dropped, with ContentTruncated /
	// ReasoningTruncated set. Tokens, chunks and timings are still counted
	// to the end of the stream, so a server that streams forever (cut by
	// the policy timeout) cannot grow the client's memory without bound.
	// 0 means DefaultMaxContentBytes; a negative value means no limit.
	MaxContentBytes int

	// beforeSend, when set (tests only), runs after a request's clock
	// and policy timer have started and before it is sent: a stalled
	// client.
	beforeSend func()
}

// DefaultMaxContentBytes is the text kept per Result by default: 8 MiB of
// Content and 8 MiB of Reasoning, far above any answer a benchmark checks
// (the record's preview is 240 characters) yet a hard bound on memory.
const DefaultMaxContentBytes = 8 << 20

// DefaultMaxEventBytes is the largest SSE event accepted by default: 16 MiB,
// far above r3labs/sse's 64 KiB default, since one chunk may carry a whole
// tool-call argument blob or a non-streaming server's entire answer.
const DefaultMaxEventBytes = 16 << 20

// Request is one streamed chat completion to send.
type Request struct {
	Model    string
	Messages []results.Message
	// MaxTokens is sent as max_tokens; 0 means 256.
	MaxTokens int
	// EnableThinking is sent as enable_thinking when non-nil.
	EnableThinking *bool
	// ExtraBody keys are merged over the built body (they win, as in the
	// reference's body.update(extra_body)).
	ExtraBody map[string]any
	// Timeout is the case's policy timeout; 0 means none. When it fires the
	// stream is closed, POST /v1/requests/{id}/cancel is tried, and the
	// error wraps ErrPolicyTimeout.
	Timeout time.Duration
	// Body, when non-nil, is sent as the request body instead of
	// BuildBody's (the fields above other than Timeout are then ignored):
	// a protocol check sending a body of its own shape.
	Body []byte
	// KeepEvents, when > 0, keeps the first KeepEvents SSE events of the
	// answer in Result.Events, each cut at MaxKeptEventBytes and at most
	// MaxKeptBytes in all, for protocol checks that need the raw stream;
	// 0 keeps none.
	KeepEvents int
	// Endpoint is the API the request goes to: "" or chat
	// (/v1/chat/completions), responses (/v1/responses) or completions
	// (/v1/completions), each streamed and read by its own event grammar
	// (docs/streams.md); embeddings are sent by Client.Embed instead.
	Endpoint workloads.Endpoint
	// StopAfterChunks, when > 0, closes the stream once that many
	// token-bearing chunks have arrived, as a client that goes away does;
	// ChatStream then returns ErrStopped.
	StopAfterChunks int
}

// MaxKeptEventBytes bounds each event kept by Request.KeepEvents: 1 MiB
// of its data (Event.Cut reports a longer one), far above a real chunk
// (a whole tool call's arguments sent in one chunk included).
const MaxKeptEventBytes = 1 << 20

// MaxKeptBytes bounds the data of all the events one Result keeps: once
// 16 MiB are kept, later events are counted (EventsSeen) but not kept.
const MaxKeptBytes = 16 << 20

// Event is one SSE event as the server sent it (Request.KeepEvents).
type Event struct {
	// Type is the "event:" field, "" when none was sent.
	Type string
	// Data is the event's data lines joined by "\n", at most
	// MaxKeptEventBytes of it (cut on a rune boundary).
	Data string
	// Cut reports that Data was cut.
	Cut bool
	// Error holds a non-standard "error:" field, "" when none.
	Error string
}

// Result is everything measured about one streamed chat completion. All
// durations are milliseconds measured on one monotonic clock from just
// before the request was sent. A Result is returned even when the request
// failed, holding what was measured up to the failure.
type Result struct {
	// StartedAt is the wall-clock time the request was sent.
	StartedAt time.Time
	// StatusCode is the HTTP status, 0 when no response arrived.
	StatusCode int
	// ConnectionRetries counts the times the request was sent again on a
	// fresh connection because the pooled connection it was sent on had
	// been closed by the server before any byte of an answer (see
	// RetryReused: 0 or 1, and always 0 through a client whose transport
	// does not retry). The retry's time is part of TTFTms and E2ELms,
	// which run from the first send.
	ConnectionRetries int
	// RequestID is the chunk "id" the server assigned, "" if none seen.
	RequestID string

	// TTFTms is the time to the first token of content, reasoning or a tool
	// call (never a role-only or empty chunk). When no token arrived it
	// equals E2ELms, as in the reference.
	TTFTms float64
	// TTFOms is the time to the first content, refusal or tool-call token
	// (first output after any reasoning); 0 with HasOutput false when none
	// came.
	TTFOms float64
	// TPOTms is the time per output token of the decode: (t_last −
	// t_first) divided by the tokens produced between the first and the
	// last token-bearing chunk (DecodeTokens, see MeasureDecode). NaN
	// when the decode could not be timed (DecodeTiming is set).
	TPOTms float64
	// ITLms holds the gaps between consecutive token-bearing chunks, the
	// first MaxKeptGaps of them; Gaps counts and summarizes all of them
	// (see ITLPercentile). nil when the decode span is not observable
	// (DecodeTiming is set).
	ITLms []float64
	// Gaps is the exact count, sum, minimum and maximum of every chunk
	// gap, with a bounded histogram of them once there are more than
	// MaxKeptGaps.
	Gaps GapStats
	// E2ELms is the time until the stream ended (or failed).
	E2ELms float64
	// GenTPS is the decode rate, DecodeTokens / (t_last − t_first)
	// seconds, in tokens/s; NaN when the decode could not be timed
	// (DecodeTiming is set).
	GenTPS float64
	// DecodeTokens is the tokens produced between the first and the
	// last token-bearing chunk and DecodeMethod how they were counted
	// (DecodeByUsage, DecodeOnePerChunk, DecodeByContent,
	// DecodeByEstimate); 0 and ""
	// when DecodeTiming is set.
	DecodeTokens float64
	DecodeMethod string
	// RefTPOTms and RefGenTPS are the reference's tpot_ms (the mean gap
	// between token-bearing chunks) and gen_tps (completion tokens /
	// (t_last − t_first)), see ComputeTimings; NaN when there was no
	// span to time (DecodeTiming is set, except DecodeFewChunks).
	RefTPOTms, RefGenTPS float64
	// DecodeTiming is "" when the decode was timed (see MeasureDecode),
	// else why not: DecodeNoTokens, DecodeSingleChunk, DecodeBurst,
	// DecodeBatched or DecodeFewChunks. DecodeNote says it for a person.
	DecodeTiming, DecodeNote string
	// PromptTPS is prompt tokens / TTFT seconds.
	PromptTPS float64

	// Usage is the server's usage report; nil when it sent none (the
	// reference would silently record 0 tokens).
	Usage *results.Usage
	// PromptTokens and CompletionTokens come from Usage; without usage
	// PromptTokens is 0 and CompletionTokens counts token-bearing chunks.
	PromptTokens, CompletionTokens int
	// TokenChunks counts the chunks that carried any token (of any
	// choice).
	TokenChunks int
	// ReasoningChunks counts the chunks of the first choice that carried
	// reasoning.
	ReasoningChunks int

	// FinishReason is the first choice's last non-empty finish_reason, ""
	// if none.
	FinishReason string
	// Content is the first choice's concatenated content deltas, at most
	// Client.MaxContentBytes bytes (see ContentTruncated). The first
	// choice is choices[].index 0 (the lowest index seen); the
	// reference read choices[0] of every chunk, which glues the choices of
	// an n > 1 stream together.
	Content string
	// Reasoning is the first choice's reasoning deltas (reasoning_content,
	// else reasoning), bounded like Content.
	Reasoning string
	// Refusal is the first choice's refusal deltas (delta.refusal), bounded
	// like Content: the model's answer when it declines.
	Refusal string
	// ContentTruncated and ReasoningTruncated report that Content or
	// Reasoning reached Client.MaxContentBytes and later text was dropped
	// (it was still counted in TokenChunks, timings and, without usage,
	// CompletionTokens).
	ContentTruncated, ReasoningTruncated bool
	// ToolCalls are the first choice's merged tool calls in stream order.
	ToolCalls []results.ToolCall
	// Choices holds every choice, sorted by index, when the stream had
	// more than one (a request with n > 1); nil otherwise. Choices[0]
	// repeats the fields above.
	Choices []Choice
	// HasOutput reports whether any content, refusal or tool-call token
	// arrived.
	HasOutput bool
	// Done reports whether the [DONE] sentinel (for the Responses API its
	// terminal event) was read.
	Done bool
	// Events are the first Request.KeepEvents events of the stream, in
	// order (keep-alives included); EventsSeen counts every event read.
	Events     []Event
	EventsSeen int
}

// Choice is one choice of a stream, assembled from the chunks carrying
// its choices[].index.
type Choice struct {
	// Index is choices[].index.
	Index int
	// FinishReason is the choice's last non-empty finish_reason, "" if none.
	FinishReason string
	// Content, Reasoning and Refusal are the choice's concatenated deltas,
	// each bounded by Client.MaxContentBytes.
	Content, Reasoning, Refusal string
	// ContentTruncated (content or refusal) and ReasoningTruncated report
	// that text was dropped at Client.MaxContentBytes.
	ContentTruncated, ReasoningTruncated bool
	// ToolCalls are the choice's merged tool calls in stream order.
	ToolCalls []results.ToolCall
	// ReasoningChunks counts the choice's chunks that carried reasoning.
	ReasoningChunks int
}
