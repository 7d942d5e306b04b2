package conformance_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/conformance"
	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// runShared runs the builtin suite's first n contracts on url, one after
// another, sharing one Health, each request bounded by timeout.
func runShared(t *testing.T, url string, n int, timeout time.Duration) []conformance.Outcome {
	t.Helper()
	w, err := workloads.Conformance()
	require.NoError(t, err, "the builtin suite parses")
	h := &conformance.Health{}
	target := conformance.Target{Sender: clientSender{&stream.Client{BaseURL: url}}, Model: "m", Health: h}
	var out []conformance.Outcome
	for _, c := range w.Cases[:n] {
		in := conformance.Input{Protocol: c.Protocol, Messages: c.Messages, MaxTokens: c.EffectiveMaxTokens(), ExtraBody: c.ExtraBody, Timeout: timeout}
		out = append(out, conformance.Run(context.Background(), target, in))
	}
	return out
}

func TestAServerThatWentAwayIsOneFailure(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	out := runShared(t, url, 6, time.Minute)
	assert.Equal(t, contract.Fail, out[0].Verdict, "the first contract meets no server: %s", out[0].Evidence)
	for i, o := range out[1:] {
		assert.Equal(t, contract.Skip, o.Verdict, "contract %d after the server went away: %s", i+2, o.Evidence)
		assert.True(t, strings.HasPrefix(o.Evidence, conformance.GoneEvidence), "contract %d says the server went away: %s", i+2, o.Evidence)
	}
}

func TestAServerThatNeverAnswersCostsTwoDeadlines(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == contract.EndpointModels {
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
			return
		}
		select { // accepts the request, never answers it
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	out := runShared(t, srv.URL, 6, 100*time.Millisecond)
	for i := range conformance.SilentContracts {
		assert.Equal(t, contract.Fail, out[i].Verdict, "contract %d times out: %s", i+1, out[i].Evidence)
	}
	for i, o := range out[conformance.SilentContracts:] {
		n := i + conformance.SilentContracts + 1
		assert.Equal(t, contract.Skip, o.Verdict, "contract %d after %d silent ones: %s", n, conformance.SilentContracts, o.Evidence)
		assert.Contains(t, o.Evidence, "in a row got no answer", "contract %d says why: %s", n, o.Evidence)
	}
}
