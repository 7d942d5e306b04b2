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

// The size budgets of a user's test binary: testdata/plugin, a package
// whose one test imports benchtest and calls RunWorkload, as the README
// writes it (Go 1.26.8, linux/amd64, measured 2026-12-04).
//
// go test builds the binary it runs without DWARF and without a symbol
// table (cmd/go passes the linker -s -w unless -c, -o or a profile keeps
// the binary): 13,074,697 bytes (12.47 MiB), under issue 25's 15 MiB.
// go test -c keeps the binary for a debugger, DWARF included: 18,742,121
// bytes (17.87 MiB), over it. Each budget is the measure plus about 1% (a
// build fact of this checkout and toolchain; CI's -mod flags moved the
// root's binary by 8 KB). Of the kept binary, 10.19 MiB is any net/http
// test's floor, 2.40 MiB expfmt and the protobuf runtime its types need
// (the /metrics scrape), 1.03 MiB client_golang (the fixture server's
// /metrics), 0.94 MiB jsonschema (the json_schema check and the
// contracts), 5.40 MiB DWARF and symbols in all; docs/design.md says
// where the rest goes and why it stays. go-snaps stays out (a
// test that snapshots imports it itself, README "Snapshots").
const (
	maxRunBinaryBytes  = 13_200_000 // 12.59 MiB: the binary go test runs
	maxKeptBinaryBytes = 18_900_000 // 18.02 MiB: go test -c's, with DWARF
)

// TestTestBinarySize keeps a user's test binary from growing, both as go
// test runs it and as go test -c keeps it. The race detector inflates
// both, so -race skips the test (CI's fresh-machine step runs it without).
func TestTestBinarySize(t *testing.T) {
	if raceEnabled {
		t.Skip("-race inflates the binary; the budget is for the default build (CI's fresh-machine step runs it)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	for _, b := range []struct {
		name   string
		flags  []string
		budget int64
	}{
		// -s -w is what go test itself passes the linker for the
		// binary it runs (cmd/go/internal/test: OmitDebug unless -c).
		{"as go test runs it", []string{"-ldflags=-s -w"}, maxRunBinaryBytes},
		{"as go test -c keeps it", nil, maxKeptBinaryBytes},
	} {
		size := pluginBinarySize(t, goTool, b.flags...)
		t.Logf("a user's test binary %s: %d bytes (%.2f MiB), budget %.2f MiB", b.name, size, mib(size), mib(b.budget))
		assert.LessOrEqualf(t, size, b.budget,
			"a user's test binary %s is %.2f MiB, over its budget of %.2f MiB: see what grew with go tool nm -size -sort size",
			b.name, mib(size), mib(b.budget))
	}
}

// pluginBinarySize builds testdata/plugin's test binary with go test -c and
// the given flags and returns its size in bytes.
func pluginBinarySize(t *testing.T, goTool string, flags ...string) int64 {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "plugin.test")
	args := append([]string{"test", "-c", "-o", bin}, flags...)
	cmd := exec.CommandContext(t.Context(), goTool, append(args, "./testdata/plugin")...)
	// Of the caller's GOFLAGS only those about modules and VCS stamping
	// stay (CI's -modcacherw, -mod=…): -race, -cover or -ldflags would
	// change the binary.
	keep := []string{"-buildvcs=false"}
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if strings.HasPrefix(f, "-mod") {
			keep = append(keep, f)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GOFLAGS="+strings.Join(keep, " "))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test -c %s ./testdata/plugin: %s", strings.Join(flags, " "), out)
	st, err := os.Stat(bin)
	require.NoError(t, err, "the test binary")
	return st.Size()
}

// mib is n bytes in MiB.
func mib(n int64) float64 { return float64(n) / (1 << 20) }
