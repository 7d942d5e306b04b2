// Package streams is benchserve's adversarial stream suite: "what real
// servers send". It holds no code of its own, only tests: each case is a
// named test (TestCase01… to TestCase10…, sub-tests for the
// variants of its kind) whose transcript is written out by hand, served by
// the fixture server (fixtures.Start with a Responder returning a Raw or
// structured Script), read through the real client (stream.Client) and,
// where the outcome lands in a record, through runner.RunCase too, with
// exact expected values. TestCase11… to TestCase15… are the
// shapes of modern servers — reasoning only, bursts and one-chunk tool
// calls, n > 1, refusals, a failed request's root cause — each on a named
// fixture scenario ([fixture:NAME]). TestCase16… and TestCase17… are the
// other endpoints: the Responses API's typed events, legacy completions and
// embeddings. TestConnectionsReleased and TestMemoryBounded
// check that cut streams free their connections and that a server
// streaming forever cannot grow the client's memory without bound.
//
// Files by topic: sse_framing (cases 1–5: usage after the finish, data:
// without a space, comments and fields, line endings, large events and
// UTF-8), chunk_payloads (6–8: errors in a stream, tool-call deltas,
// finish reasons), timing_and_http_failures (9–10 and the released
// connections), modern_shapes (11–15), endpoints (16–17), memory.
//
// docs/streams.md describes each case: what the server sends, which
// servers do it, and what benchserve records.
//
// Run it with:
//
//	go test -race ./tests/streams/
package streams
