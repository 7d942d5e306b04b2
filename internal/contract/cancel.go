package contract

import "time"

// CancelFreesCapacity: streamed; the case's request is opened
// AbandonedStreams times at once and each closed after its first token
// chunk, between two requests with max_tokens CapacityProbeTokens (the
// baseline and the new request).
const CancelFreesCapacity Kind = "cancel_frees_capacity"

// AbandonedStreams is how many streams a cancel_frees_capacity contract
// opens at once and abandons after their first token chunk: 16, more
// than the parallel slots of a CPU server (llama-server's default is 4,
// Ollama's 1 to 4).
const AbandonedStreams = 16

// CapacityProbeTokens is the max_tokens of a cancel_frees_capacity
// contract's baseline request and of the new request sent after the
// abandoned streams: 16, an answer of seconds even on a CPU.
const CapacityProbeTokens = 16

// CapacityFactor and CapacityFloor make a cancel_frees_capacity
// contract's bound: the new request (and each abandoned stream's first
// token) must come within max(CapacityFactor × the baseline's E2E
// latency, CapacityFloor); 10× and 30 s, so that a busy machine's
// jitter never reaches the bound and a server that keeps the abandoned
// streams' slots (for as long as their answers would take) does.
const (
	CapacityFactor = 10
	CapacityFloor  = 30 * time.Second
)

// CapacityDeadline is a cancel_frees_capacity contract's own deadline:
// 120 s for the baseline, the abandoned streams and the new request.
const CapacityDeadline = 120 * time.Second
