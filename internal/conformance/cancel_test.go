package conformance_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/conformance"
	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// slowScrapes streams through a real client and answers /metrics itself:
// before the stream the gauge is 0; the first scrape after it answers 1
// (the request not yet dropped) but takes longer than the grace, as a
// scrape on a stalled machine does; every later scrape answers 0.
type slowScrapes struct {
	clientSender
	mu      sync.Mutex
	streams int
	scrapes int // after the stream
}

func (s *slowScrapes) Stream(ctx context.Context, req stream.Request) (*stream.Result, error) {
	s.mu.Lock()
	s.streams++
	s.mu.Unlock()
	return s.clientSender.Stream(ctx, req)
}

func (s *slowScrapes) Do(ctx context.Context, method, path string, body []byte, key *string, limit int64) (stream.Exchange, error) {
	if path != "/metrics" {
		return s.clientSender.Do(ctx, method, path, body, key, limit)
	}
	s.mu.Lock()
	after := s.streams > 0
	if after {
		s.scrapes++
	}
	n := s.scrapes
	s.mu.Unlock()
	v := "0"
	if after && n == 1 {
		v = "1"
		t := time.NewTimer(conformance.CancelGrace + 200*time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return stream.Exchange{Status: http.StatusOK, ContentType: "text/plain; version=0.0.4",
		Body: []byte("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running " + v + "\n")}, nil
}

// TestCancelStopsScrapesAfterTheGrace: a cancel_stops contract judges by a
// scrape that starts after the grace, not by one that started before it
// and came back late: a server whose gauge fell passes however slow the
// machine's scrapes are.
func TestCancelStopsScrapesAfterTheGrace(t *testing.T) {
	w, err := workloads.Parse([]byte(`{"cases": [{"id": "cancel.stops", "max_tokens": 512,
		"messages": [{"role": "user", "content": "Write a very long essay on the history of mathematics."}],
		"protocol": {"level": "MAY", "check": "cancel_stops", "cancel_after": 2}}]}`), "cancel.json")
	require.NoError(t, err, "the contract parses")
	c := w.Cases[0]
	srv := fixtures.Start(t, fixtures.Options{Timing: &fixtures.Timing{}})
	sender := &slowScrapes{clientSender: clientSender{&stream.Client{BaseURL: srv.URL}}}
	in := conformance.Input{Protocol: c.Protocol, Messages: c.Messages, MaxTokens: c.EffectiveMaxTokens()}
	out := conformance.Run(context.Background(), conformance.Target{Sender: sender, Model: srv.Model()}, in)
	assert.Equal(t, contract.Pass, out.Verdict, "the gauge had fallen by the scrape after the grace: %s; got %s", out.Evidence, out.Received)
	assert.Equal(t, 2, sender.scrapes, "one late scrape, then one after the grace")
}
