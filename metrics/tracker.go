package metrics

import (
	"sync/atomic"
	"time"
)

// InferenceTracker is request-scoped inference timing and token accounting,
// a port of the reference's InferenceTracker dataclass. Create one with
// Collector.TrackInference when a request starts, call ObserveTTFT when its
// first token is produced and Finish when it ends.
//
// A nil *InferenceTracker is valid and does nothing: TrackInference returns
// nil while the collector is disabled, so the disabled path allocates
// nothing. TTFT is recorded at most once and Finish at most once, even when
// called again or from several goroutines at the same time.
type InferenceTracker struct {
	c        *Collector
	endpoint string
	stream   bool
	start    time.Time
	ttftDone atomic.Bool
	finished atomic.Bool
}

// TrackInference starts tracking one inference request on endpoint (a
// route label such as "/v1/chat/completions"); stream labels it
// stream="true"/"false" (reference: track_inference). The start time is
// read from the collector's clock now. It returns nil (a no-op tracker)
// while the collector is disabled or c is nil.
func (c *Collector) TrackInference(endpoint string, stream bool) *InferenceTracker {
	if !c.Enabled() {
		return nil
	}
	return &InferenceTracker{c: c, endpoint: endpoint, stream: stream, start: c.now()}
}

// ObserveTTFT records the time since the tracker started in
// vllm_mlx_inference_ttft_seconds, the first time it is called; later calls
// do nothing (reference: InferenceTracker.observe_ttft). Nothing is
// recorded if the collector has been disabled meanwhile.
func (t *InferenceTracker) ObserveTTFT() {
	if t == nil || !t.ttftDone.CompareAndSwap(false, true) {
		return
	}
	t.c.ObserveTTFT(t.endpoint, t.stream, t.c.now().Sub(t.start))
}

// Finish records the request's outcome the first time it is called; later
// calls do nothing (reference: InferenceTracker.finish). result is a short
// outcome label such as "success", "error" or "cancelled"; promptTokens and
// completionTokens are added to the token counters when > 0. The duration
// is the time since the tracker started.
func (t *InferenceTracker) Finish(result string, promptTokens, completionTokens int) {
	if t == nil || !t.finished.CompareAndSwap(false, true) {
		return
	}
	t.c.ObserveInference(t.endpoint, t.stream, result, t.c.now().Sub(t.start), promptTokens, completionTokens)
}

// Finished reports whether Finish has been called (false for a nil
// tracker).
func (t *InferenceTracker) Finished() bool { return t != nil && t.finished.Load() }
