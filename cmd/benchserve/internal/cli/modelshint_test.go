package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/fixtures"
)

// A --url with a path gets a 404 on /v1/models; the hint says to give
// the server's root, not only to pass a model (which would meet the same
// 404 on every request).
func TestURLWithAPathSaysToGiveTheRoot(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	res := invoke(t, "--url", srv.URL+"/foo", "--workload", smoke, "--repetitions", "1")
	assert.Equal(t, ExitUsage, res.code, res.stderr)
	assert.Contains(t, res.stderr, "HTTP 404 from GET /v1/models")
	assert.Contains(t, res.stderr, "give the server's root as the URL, http://host:port (benchserve adds /v1/…)")
}
