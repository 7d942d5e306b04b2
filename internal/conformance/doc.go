// Package conformance checks that a server keeps the protocol of the
// OpenAI Chat Completions API: the contracts a client relies on (stream
// framing, usage, limits, tools, structured output, errors, models,
// reasoning, cancellation), each a rule of the API reference
// (contract.Rules).
//
// A contract is a workload case with a "protocol" object (a
// workloads.Protocol, its kinds and rules the data of internal/contract):
// its level (MUST, SHOULD, MAY), its check kind and the shape of its
// request (streamed or not, a raw body, another endpoint, a body
// override, a comparison of a streamed and a non-streamed answer). Run
// sends the request and judges the answer, returning a verdict with
// evidence: what was sent, what came back and the rule it breaks. The
// builtin suite is workloads/conformance.json (package workloads); runner
// executes protocol cases through this package, and the doors
// (benchtest.RunConformance, benchserve conformance) report one record
// per contract.
//
// Where the API reference is silent, docs/streams.md says what the suite
// accepts and why.
package conformance
