package longtest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/longtest"
)

// skipRecorder records Skipf instead of stopping the test.
type skipRecorder struct {
	testing.TB
	skips []string
}

func (r *skipRecorder) Helper() {}

func (r *skipRecorder) Skipf(format string, args ...any) {
	r.skips = append(r.skips, fmt.Sprintf(format, args...))
}

func TestEnabledFollowsTheVariable(t *testing.T) {
	t.Setenv(longtest.Env, "1")
	assert.True(t, longtest.Enabled(), "%s=1 runs the long tests", longtest.Env)
	t.Setenv(longtest.Env, "")
	assert.False(t, longtest.Enabled(), "unset, they are skipped")
	t.Setenv(longtest.Env, "yes")
	assert.False(t, longtest.Enabled(), "only 1 runs them")
}

func TestSkipNamesTheVariable(t *testing.T) {
	t.Setenv(longtest.Env, "")
	r := &skipRecorder{TB: t}
	longtest.Skip(r, "about a minute")
	assert.Equal(t, []string{"about a minute; set BENCHSERVE_LONG=1 to run it (CI's long-tests step does)"}, r.skips,
		"unset, the test is skipped with a message that says how long it takes and names the variable")

	t.Setenv(longtest.Env, "1")
	r = &skipRecorder{TB: t}
	longtest.Skip(r, "about a minute")
	assert.Empty(t, r.skips, "with %s=1 the test runs", longtest.Env)
}
