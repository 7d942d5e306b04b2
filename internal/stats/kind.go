package stats

// ErrorKind classifies why a request failed; "" means it succeeded.
type ErrorKind string

// Error kinds reported in Stats.Errors (see Classify).
const (
	// KindHTTP4xx: the server answered 4xx (stream.HTTPError).
	KindHTTP4xx ErrorKind = "http_4xx"
	// KindHTTP5xx: the server answered 5xx (stream.HTTPError).
	KindHTTP5xx ErrorKind = "http_5xx"
	// KindHTTPOther: any other non-2xx status (stream.HTTPError).
	KindHTTPOther ErrorKind = "http_other"
	// KindServerError: an error reported inside a 200 stream (stream.ServerError).
	KindServerError ErrorKind = "server_error"
	// KindPolicyTimeout: the case's policy timeout fired (stream.ErrPolicyTimeout).
	KindPolicyTimeout ErrorKind = "policy_timeout"
	// KindTruncated: the stream ended without [DONE] (stream.ErrTruncated).
	KindTruncated ErrorKind = "truncated"
	// KindCanceled: the run's context ended (its duration cap or the
	// caller) while the request was in flight.
	KindCanceled ErrorKind = "canceled"
	// KindInterrupted: the run was stopped (Ctrl-C, SIGTERM, go test
	// -timeout) while the request was in flight; the request has no
	// measurement and is kept out of statistics (see
	// results.MarkInterrupted). Unlike KindCanceled, which a run's own
	// duration cap causes, it says the run did not finish.
	KindInterrupted ErrorKind = "interrupted"
	// KindTransport: anything else (connection refused, reset, bad JSON…).
	KindTransport ErrorKind = "transport"
	// KindQuality: the request streamed without error but its answer
	// failed a quality check (set by callers that check answers, such as
	// package benchtest).
	KindQuality ErrorKind = "quality"
	// KindDropped: an open-loop request never sent because MaxInFlight
	// requests were already in flight (OverflowDrop).
	KindDropped ErrorKind = "dropped"
)

// KindRequest is the error kind loadgen.PayloadStats gives a record whose
// request failed for a reason other than its policy timeout.
const KindRequest ErrorKind = "request"
