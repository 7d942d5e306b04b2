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
// fixture scenario ([fixture:NAME]). TestConnectionsReleased and TestMemoryBounded
// check that cut streams free their connections and that a server
// streaming forever cannot grow the client's memory without bound.
//
// docs/streams.md describes each case: what the server sends, which
// servers do it, and what benchserve records.
//
// Run it with:
//
//	go test -race ./tests/streams/
package streams
