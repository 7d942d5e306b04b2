package conformance

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/benchserve/benchserve/internal/contract"
)

// GoneEvidence starts the evidence of a contract that was not checked
// because the server went away earlier in the run (Health).
const GoneEvidence = "not checked: the server went away"

// ProbeTimeout bounds the GET /v1/models that asks, after a contract
// whose requests got no answer, whether the server is still there: 5 s.
const ProbeTimeout = 5 * time.Second

// SilentContracts is how many contracts in a row may get no answer at
// all (every request timed out or found no server) before the rest of
// the run is not checked, even when the server still answers
// /v1/models: 2, so a server that accepts requests and never answers
// costs two contracts' deadlines, not one per contract.
const SilentContracts = 2

// Health is what the contracts of one run have learned of the server's
// liveness, shared through Target.Health, so that a server that went
// away mid-run gives one clear verdict ("the server went away") and not
// one failure per contract, and a server that never answers costs a
// bounded time. The zero value is ready; safe for concurrent use.
type Health struct {
	mu     sync.Mutex
	silent int    // contracts in a row none of whose requests got an answer
	first  string // what the first of them met
	gone   string // why the rest is not checked, "" while it is
}

// Gone is why the rest of the run is not checked, "" while the server
// answers.
func (h *Health) Gone() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gone
}

// record notes a contract's outcome: answered is whether any of its
// requests got an HTTP answer; what is the error of one that got none.
func (h *Health) record(kind contract.Kind, answered bool, what error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if answered || what == nil {
		h.silent, h.first = 0, ""
		return
	}
	if h.silent == 0 {
		h.first = fmt.Sprintf("%s: %v", kind, what)
	}
	h.silent++
	if h.silent >= SilentContracts && h.gone == "" {
		h.gone = fmt.Sprintf("%d contracts in a row got no answer (the first, %s)", h.silent, h.first)
	}
}

// markGone ends the run's checking with why.
func (h *Health) markGone(why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gone == "" {
		h.gone = why
	}
}

// silentSince is what the first of the contracts in a row without an
// answer met, "" when the last contract got one.
func (h *Health) silentSince() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.first
}

// notChecked is the outcome of a contract run after the server went
// away: a skip (it was not judged), its evidence starting GoneEvidence;
// ok is false when the server is still there. After a contract without
// any answer it first probes GET /v1/models (ProbeTimeout).
func (r *contractRun) notChecked(ctx context.Context) (Outcome, bool) {
	h := r.t.Health
	if h == nil {
		return Outcome{}, false
	}
	if why := h.Gone(); why != "" {
		return gone(why), true
	}
	first := h.silentSince()
	if first == "" {
		return Outcome{}, false
	}
	pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	got, err := r.t.Sender.Do(pctx, http.MethodGet, contract.EndpointModels, nil, nil, maxBody)
	if got.Status != 0 || ctx.Err() != nil {
		return Outcome{}, false
	}
	h.markGone(fmt.Sprintf("no answer since %s; GET %s then got none within %s either: %v", first, contract.EndpointModels, ProbeTimeout, err))
	return gone(h.Gone()), true
}

// gone is the skip of a contract not checked because the server went
// away for why.
func gone(why string) Outcome {
	out := skip("%s: %s", GoneEvidence, why)
	out.NotChecked = true
	return out
}
