package workloads

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseEndpointPaths(t *testing.T) {
	for name, path := range map[string]string{"": "/v1/chat/completions", "chat": "/v1/chat/completions",
		"responses": "/v1/responses", " COMPLETIONS ": "/v1/completions", "embeddings": "/v1/embeddings"} {
		e, err := parseEndpoint(name)
		require.NoError(t, err, "%q is an endpoint", name)
		assert.Equal(t, path, e.Path(), "path of %q", name)
	}
	_, err := parseEndpoint("chat/completions")
	assert.Error(t, err, "a path is not an endpoint name")
}
