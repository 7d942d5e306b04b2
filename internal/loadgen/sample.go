package loadgen

import (
	"context"
	"errors"
	"time"

	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// Classify maps a ChatStream error to its kind with errors.Is/As on
// stream's error types: nil → "", *stream.HTTPError → http_4xx/http_5xx/
// http_other by status class, *stream.ServerError → server_error,
// stream.ErrPolicyTimeout → policy_timeout, stream.ErrTruncated →
// truncated, context.Canceled/DeadlineExceeded → canceled, anything else →
// transport. Policy timeouts are tested before context errors because a
// policy timeout may wrap a deadline.
func Classify(err error) results.ErrorKind {
	var he *stream.HTTPError
	var se *stream.ServerError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &he):
		switch {
		case he.StatusCode >= 400 && he.StatusCode < 500:
			return results.KindHTTP4xx
		case he.StatusCode >= 500 && he.StatusCode < 600:
			return results.KindHTTP5xx
		}
		return results.KindHTTPOther
	case errors.As(err, &se):
		return results.KindServerError
	case errors.Is(err, stream.ErrPolicyTimeout):
		return results.KindPolicyTimeout
	case errors.Is(err, stream.ErrTruncated):
		return results.KindTruncated
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return results.KindCanceled
	}
	return results.KindTransport
}

// Sample is the measurement of one request of a run, kept small (no
// content) so runs of many requests stay cheap. Times are milliseconds.
type Sample struct {
	// Index is the request's position in the run (schedule order).
	Index int
	// Scheduled is the intended send offset from the run start (open
	// loop); in a closed loop it equals Sent.
	Scheduled time.Duration
	// Sent is the actual send offset from the run start.
	Sent time.Duration
	// Lag is Sent − Scheduled: how late the client was (open loop).
	Lag time.Duration

	// TTFTms, TTFOms, TPOTms, E2ELms, ITLms and GenTPS are copied from the
	// stream.Result (see its fields). HasOutput is false when no content
	// or tool-call token came, and TTFOms is then meaningless.
	TTFTms, TTFOms, TPOTms, E2ELms float64
	HasOutput                      bool
	ITLms                          []float64
	GenTPS                         float64
	// CompletionTokens is the request's completion token count.
	CompletionTokens int
	// ConnectionRetries is stream.Result.ConnectionRetries: the request
	// was sent again on a fresh connection because the server had closed
	// the reused one without answering.
	ConnectionRetries int

	// Err is the request error; Kind its classification ("" on success).
	// A sample may also be failed by the caller after the fact (a failed
	// quality check): set Kind (and Err) on it.
	Err  error
	Kind results.ErrorKind
}

// OK reports whether the request succeeded.
func (s Sample) OK() bool { return s.Kind == "" && s.Err == nil }

// SampleOf builds a Sample from a ChatStream outcome; res may be nil.
func SampleOf(res *stream.Result, err error) Sample {
	s := Sample{Err: err, Kind: Classify(err)}
	if res == nil {
		if err != nil && s.Kind == "" {
			s.Kind = results.KindTransport
		}
		return s
	}
	s.TTFTms = res.TTFTms
	s.TTFOms = res.TTFOms
	s.HasOutput = res.HasOutput
	s.TPOTms = res.TPOTms
	s.E2ELms = res.E2ELms
	s.ITLms = res.ITLms
	s.GenTPS = res.GenTPS
	s.CompletionTokens = res.CompletionTokens
	s.ConnectionRetries = res.ConnectionRetries
	return s
}
