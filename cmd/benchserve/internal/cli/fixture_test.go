package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFixtureSlotsFlag(t *testing.T) {
	var out, errb strings.Builder
	code := run(context.Background(), []string{"fixture", "--slots", "-1"}, &env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	assert.Equal(t, ExitUsage, code, "negative slots refused")
	assert.Contains(t, errb.String(), "--slots -1: want 0 (unlimited) or more", "says why")

	errb.Reset()
	code = run(context.Background(), []string{"fixture", "--help"}, &env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	assert.Equal(t, ExitOK, code, "help")
	assert.Contains(t, errb.String(), "-slots int", "help lists --slots")
	assert.Contains(t, errb.String(), "FIFO line", "and what it does")
}
