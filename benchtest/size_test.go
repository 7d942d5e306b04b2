package benchtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxTestBinaryBytes is the size budget of the module root's test binary
// (`go test -c .`, default flags, DWARF included): the root's tests import
// only benchtest, so it links what a user's test links. The fixture's
// Prometheus collector (client_golang and protobuf, about 1.2 MB) and the
// conformance suite's JSON Schema validator (about 1 MB) are most of what
// sits above a plain net/http test binary. This round's endpoints,
// generators, trace replay, comparison and client verdict took it from
// 17.10 to 17.68 MiB (18,536,419 bytes); the next round's contracts
// (form bodies, several stops, invalid schemas, cancellation capacity,
// Responses events, completions echo and logprobs), sessions,
// --max-error-rate, latencies from the schedule and the OnRecord hook
// took it to 17.89 MiB (18,759,664 bytes); the five contracts of
// 2026-12-03 (completions n, unasked usage, Responses ids and store,
// repeated-request cache), the token calibration and the fixture's stored
// responses took it to 18.03 MiB (18,907,584 bytes in CI); the budget is
// 18.5 MiB. docs/design.md says where the bytes go. go-snaps
// stays out (benchtest/snapshot is its own opt-in import). The issue's
// 15 MiB is not met: expfmt's protobuf and the JSON Schema validator
// alone are more than the 2.9 MiB between.
const maxTestBinaryBytes = 37 << 19 // 18.5 MiB

// TestTestBinarySize keeps a user's test binary from growing: the size is
// a build fact of this checkout and toolchain, not a measurement. The race
// detector inflates it, so -race skips the test (CI runs it without).
func TestTestBinarySize(t *testing.T) {
	if raceEnabled {
		t.Skip("-race inflates the binary; the budget is for the default build (CI's fresh-machine step runs it)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	bin := filepath.Join(t.TempDir(), "root.test")
	cmd := exec.CommandContext(t.Context(), goTool, "test", "-c", "-o", bin, ".")
	cmd.Dir = ".."
	// Of the caller's GOFLAGS only those about modules and VCS stamping
	// stay (CI's -modcacherw, -mod=…): -race, -cover or -ldflags would
	// change the binary.
	flags := []string{"-buildvcs=false"}
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if strings.HasPrefix(f, "-mod") {
			flags = append(flags, f)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GOFLAGS="+strings.Join(flags, " "))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test -c . in the module root: %s", out)
	st, err := os.Stat(bin)
	require.NoError(t, err, "the test binary")
	t.Logf("the root's test binary: %d bytes (%.2f MiB), budget %.2f MiB", st.Size(), float64(st.Size())/(1<<20), float64(maxTestBinaryBytes)/(1<<20))
	assert.LessOrEqualf(t, st.Size(), int64(maxTestBinaryBytes),
		"the root's test binary is %.2f MiB, over its budget of %.2f MiB: see what grew with go tool nm -size -sort size",
		float64(st.Size())/(1<<20), float64(maxTestBinaryBytes)/(1<<20))
}
