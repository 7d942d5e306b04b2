// Package stream is benchserve's streaming chat-completions client: it sends
// one OpenAI-compatible request with stream: true, reads the Server-Sent
// Events answer and measures it (TTFT, TTFO, TPOT, inter-token latencies,
// end-to-end latency, generation and prompt throughput). It ports the
// reference's stream_chat_completion, parse_sse_line, accumulate_tool_calls,
// finalize_tool_calls, compute_request_metrics and _cancel_server_request.
//
// # Event stream
//
// The body is split into events by r3labs/sse's EventStreamReader (LF, CRLF
// and CR line ends, any read boundaries, events up to Client.MaxEventBytes,
// 16 MiB by default) and the fields are parsed here per the WHATWG rules:
// "data:" with or without one leading space, several data lines joined by
// "\n", ":" comments, "event:", "id:" and "retry:" ignored, "[DONE]" ends the
// stream. A final event without a trailing blank line still counts. Two
// non-standard error forms become a *ServerError: an "error:" field, and an
// "event: error" whose data holds the error.
//
// # Chunks and tokens
//
// Each data event is one chat.completion.chunk (decoded without allocation
// on the common path, with encoding/json into openai.Chunk as the
// fallback). Every entry of choices is added to its choice by
// choices[].index (Result.Choices when there are several; the Result's
// answer fields are the first choice's). A chunk is token-bearing when it
// carries non-empty content, refusal, reasoning ("reasoning_content",
// else "reasoning") or tool-call deltas of any choice; role-only and
// empty chunks are not tokens. A chunk's arrival time is when the network
// read that delivered it returned. The chunk "id" becomes
// Result.RequestID; usage is taken from any chunk carrying it; each
// choice's last non-empty finish_reason wins. Decode rates are timed over
// the tokens produced between the first and the last token-bearing chunk,
// counted from per-chunk usage (vLLM's continuous_usage_stats), else the
// server's count apportioned by the text each chunk carried
// (DecodeByContent), else equal shares N·(k−1)/k, and reported with the chunk gaps only when the
// arrival times can time them (MeasureDecode, MinDecodeSpan,
// MinDecodeChunks); the reference's formulas are Result.RefTPOTms and
// RefGenTPS (ComputeTimings). An "error" key
// (object or string, with TGI's "error_type") or "object": "error" (vLLM's
// bare ErrorResponse) fails the request with a *ServerError. Timing formulas are in ComputeTimings.
//
// # Failures
//
// ChatStream always returns a *Result holding what was measured up to the
// failure; the error tells what happened (see ChatStream). Redirects are
// never followed (unless the caller's http.Client sets CheckRedirect), and
// the text kept per Result is bounded by Client.MaxContentBytes. A policy
// timeout (Request.Timeout) is timed from the instant E2E is measured
// from, so a request cut at the limit reports E2E of at least the limit.
// A request that failed on a reused pooled connection before any byte of
// an answer (the server had closed it) is sent once more on a fresh one
// by the default client (RetryReused) and counted in
// Result.ConnectionRetries.
//
// # Endpoints
//
// Request.Endpoint chooses the API: chat completions (the default), the
// Responses API (/v1/responses: typed events read by handleResponse, no
// [DONE], the stream ending at response.completed, .incomplete or
// .failed) or legacy completions (/v1/completions: choices[].text). Each
// endpoint's deltas are added to the same per-choice accumulators and
// timed by the same rules (addChunk). Client.Embed sends one
// /v1/embeddings batch, not streamed, and measures its latency.
//
// docs/streams.md lists what real servers send and how each case is read.
package stream
