package py

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Expected values are CPython 3.11's str(pathlib.PurePosixPath(p)).
func TestPathStringFollowsPathlib(t *testing.T) {
	for in, want := range map[string]string{
		"": ".", ".": ".", "a//b/./c/": "a/b/c", "../x": "../x", "/": "/",
		"//net/x": "//net/x", "///x": "/x", "./": ".",
	} {
		assert.Equal(t, want, PathString(in), "str(Path(%q))", in)
	}
}
