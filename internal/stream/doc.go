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
// choice's last non-empty finish_reason wins. Decode rates and chunk gaps
// are reported only when the decode span is observable (DecodeObservable,
// MinDecodeSpan). An "error" key
// (object or string, with TGI's "error_type") or "object": "error" (vLLM's
// bare ErrorResponse) fails the request with a *ServerError. Timing formulas are in ComputeTimings.
//
// # Failures
//
// ChatStream always returns a *Result holding what was measured up to the
// failure; the error tells what happened (see ChatStream). Redirects are
// never followed (unless the caller's http.Client sets CheckRedirect), and
// the text kept per Result is bounded by Client.MaxContentBytes.
//
// docs/streams.md lists what real servers send and how each case is read.
package stream
