package stream_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// Every chat request carries its own X-Request-Id, which the Result
// keeps with the server's (its X-Request-Id response header): 20 requests,
// 20 distinct ids, each the one the server received.
func TestRequestIDs(t *testing.T) {
	var mu sync.Mutex
	got := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		mu.Lock()
		got[id] = true
		mu.Unlock()
		w.Header().Set("X-Request-Id", "srv-"+id)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"))
	}))
	t.Cleanup(srv.Close)
	c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	req := stream.Request{Model: "m", Messages: []results.Message{{"role": "user", "content": "hello"}}}
	sent := map[string]bool{}
	for range 20 {
		res, err := c.ChatStream(context.Background(), req)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(res.SentRequestID, "bs-"), "an id of ours: %q", res.SentRequestID)
		assert.Len(t, res.SentRequestID, len("bs-")+26, "130 random bits in base32")
		assert.Equal(t, "srv-"+res.SentRequestID, res.HeaderRequestID, "the server's header kept")
		assert.Equal(t, "chatcmpl-1", res.RequestID, "and the chunk id")
		sent[res.SentRequestID] = true
	}
	assert.Len(t, sent, 20, "every request its own id")
	assert.Equal(t, sent, got, "the ids the server received")
}
