package paths

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExpandHome(t *testing.T) {
	home, err := os.UserHomeDir()
	require.NoError(t, err, "home dir")
	assert.Equal(t, filepath.Join(home, "w.json"), ExpandHome("~/w.json"), "~/ expands")
	assert.Equal(t, home, ExpandHome("~"), "~ alone expands")
	assert.Equal(t, "~no-such-user-xyz/w.json", ExpandHome("~no-such-user-xyz/w.json"), "unknown user stays as written")
	assert.Equal(t, "a/~/b", ExpandHome("a/~/b"), "only a leading ~ expands")
}
