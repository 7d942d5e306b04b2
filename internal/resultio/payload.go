package resultio

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/benchserve/benchserve/results"
)

// TransportNote is the fixed payload "transport.note" of the reference.
const TransportNote = "transport safety only; product policy timeouts live in workload cases"

// PolicyNoteText is the fixed payload "policy.note" of the reference.
const PolicyNoteText = "comparison-only unless your product contract explicitly requires it"

// PayloadInput is what BuildPayload needs from a finished workload run.
type PayloadInput struct {
	// RunID identifies the run (NewRunID when empty).
	RunID string
	// Timestamp is the run start (ISOTimestamp(time.Now()) when empty).
	Timestamp string
	// Workload is the "workload" block; nil Defaults become {}.
	Workload results.WorkloadInfo
	// RequestTimeoutS is the transport timeout in seconds (nil = none).
	RequestTimeoutS *float64
	// CacheMode is the resolved cache policy (a workloads.CachePolicy:
	// "preserve", "before-run" or "before-case").
	CacheMode string
	// CacheEvents are the cache resets made under CacheMode.
	CacheEvents []results.CacheEvent
	// Records are the case × repetition records in run order.
	Records []results.Record
}

// BuildPayload assembles the workload results payload (reference: the
// payload dict of run_bench_serve_workload): the fixed transport and policy
// notes, the cache policy block and Summarize(in.Records). Nil slices and
// maps become empty so the JSON has [] and {} where the reference does.
// The records are not copied.
func BuildPayload(in PayloadInput) *results.Payload {
	if in.RunID == "" {
		in.RunID = NewRunID()
	}
	if in.Timestamp == "" {
		in.Timestamp = ISOTimestamp(time.Now())
	}
	if in.Workload.Defaults == nil {
		in.Workload.Defaults = map[string]any{}
	}
	if in.CacheEvents == nil {
		in.CacheEvents = []results.CacheEvent{}
	}
	if in.Records == nil {
		in.Records = []results.Record{}
	}
	return &results.Payload{
		RunID:       in.RunID,
		Timestamp:   in.Timestamp,
		Workload:    in.Workload,
		Transport:   results.Transport{RequestTimeoutS: in.RequestTimeoutS, Note: TransportNote},
		Policy:      results.PolicyNote{Note: PolicyNoteText},
		CachePolicy: results.CachePolicy{Mode: in.CacheMode, Events: in.CacheEvents},
		Summary:     results.Summarize(in.Records),
		Results:     in.Records,
	}
}

// NewRunID returns a fresh 8-character lowercase hex run id, the shape of
// the reference's str(uuid.uuid4())[:8].
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// ISOTimestamp formats t in UTC as Python's
// datetime.now(timezone.utc).isoformat() does:
// "2025-01-02T03:04:05.123456+00:00", the fraction omitted when the
// microseconds are zero.
func ISOTimestamp(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05") + "+00:00"
	}
	return t.Format("2006-01-02T15:04:05.000000") + "+00:00"
}
