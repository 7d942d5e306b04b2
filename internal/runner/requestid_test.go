package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
)

// Each record of a load run keeps the X-Request-Id it was sent with
// (distinct for every request) and the server's own id (the fixture's
// X-Request-Id response header, its chatcmpl id), so records join the
// server's logs.
func TestRecordsKeepRequestIDs(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [{"id": "hello", "messages": [{"role": "user", "content": "Say hello."}]}]}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	_, err = s.RunLoad(context.Background(), runner.Load{Rate: 50, Requests: 30, Seed: 1})
	require.NoError(t, err, "load run")
	p := s.Payload()
	require.Len(t, p.Results, 30)
	ours, theirs := map[string]bool{}, map[string]bool{}
	for _, rec := range p.Results {
		assert.True(t, strings.HasPrefix(rec.Request.ID, "bs-"), "our id: %q", rec.Request.ID)
		assert.True(t, strings.HasPrefix(rec.Request.ServerID, "chatcmpl-fixture-"), "the server's id: %q", rec.Request.ServerID)
		ours[rec.Request.ID], theirs[rec.Request.ServerID] = true, true
	}
	assert.Len(t, ours, 30, "every request its own id")
	assert.Len(t, theirs, 30, "every record the server's id of its request")
}
