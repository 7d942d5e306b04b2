// Package traces reads timestamped request traces, for a timed replay
// through the one load engine: the "mooncake" and "azure" generators of
// package datasets turn each line into a request of the trace's lengths
// sent at its (scaled) time (loadgen.Open.Offsets).
//
// Two formats are read, each streamed line by line so a trace of a million
// requests never sits in memory:
//
//   - Mooncake JSONL (Mooncake's mooncake_trace.jsonl; vLLM's timed trace):
//     {"timestamp": ms since the first request, "input_length": N,
//     "output_length": M, "hash_ids": [ids of the prompt's fixed-size token
//     blocks]}. Two requests naming the same hash id share that block, so
//     their prompts share the same prefix text (datasets.Prompter.Block),
//     and the trace's prefix reuse reaches the server's cache as it did in
//     production; Reuse computes the cached tokens that reuse should give.
//   - The Azure LLM inference trace CSV (Azure/AzurePublicDataset,
//     AzureLLMInferenceTrace_{code,conv}.csv): TIMESTAMP,ContextTokens,
//     GeneratedTokens, the timestamp a date-time whose offset from the
//     first row is the arrival time. It has no block ids: every prompt is
//     its own text.
//
// A malformed line is an *Error naming the file, the line and the field.
package traces
