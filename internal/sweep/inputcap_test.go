package sweep_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/sweep"
)

func TestLoadPromptSetCapsInputSize(t *testing.T) {
	_, err := sweep.LoadPromptSet("/dev/zero")
	assert.ErrorIs(t, err, resultio.ErrNotAFile, "a device is refused at once, not read until memory runs out")
	assert.ErrorContains(t, err, `prompt set "/dev/zero"`, "the error names the prompt set")

	big := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(big)
	require.NoError(t, err, "setup")
	require.NoError(t, f.Truncate(sweep.MaxPromptFileBytes+1), "setup: sparse file one byte over the cap")
	require.NoError(t, f.Close(), "setup")
	_, err = sweep.LoadPromptSet(big)
	assert.ErrorIs(t, err, resultio.ErrInputTooLarge, "over MaxPromptFileBytes")
	assert.ErrorContains(t, err, "big.json", "names the file")
}
