package benchtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/longtest"
)

// TestNoStaleVerdicts proves that go test never answers a run against a
// real server from its cache: a user's module (written to a temporary
// directory, using this checkout of benchserve) runs RunWorkload with
// BENCHSERVE_URL pointing at a fixture in this process. The first
// `go test` passes; the server is stopped; the second `go test`, with the
// same flags and environment, must run again and fail — not print
// "ok … (cached)". It builds a test binary and runs go test twice (about
// 10 s when this run's build cache serves the packages, minutes when it
// does not), so it runs only with BENCHSERVE_LONG=1.
func TestNoStaleVerdicts(t *testing.T) {
	longtest.Skip(t, "10 s to minutes: builds a scratch module's test binary with the go command, offline, and runs go test twice")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go") //nolint:staticcheck // the toolchain that built this test
		if _, serr := os.Stat(goBin); serr != nil {
			t.Skipf("no go command to run (PATH: %v; GOROOT: %v)", err, serr)
		}
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err, "module root")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err, "go.sum")
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "go.mod")
	// The user's module requires what this module requires, so its module
	// graph is this one's (pruned the same way) and every go.mod it needs
	// is one `go mod download` of this checkout fetched: an empty module
	// cache filled by CI's download is enough, GOPROXY=off holds.
	userMod := strings.Replace(string(mod), "module github.com/benchserve/benchserve", "module example.com/verdict", 1)
	require.NotEqual(t, string(mod), userMod, "go.mod names the module on its first line")

	dir := t.TempDir()
	files := map[string]string{
		"go.mod": userMod + "\nrequire github.com/benchserve/benchserve v0.0.0\n\n" +
			"replace github.com/benchserve/benchserve => " + root + "\n",
		"go.sum": string(sum),
		"w.json": `{"name":"verdict","cases":[{"id":"hello","messages":[{"role":"user","content":"Tell me about rivers."}],"checks":{"finish_reason":["stop"]}}]}`,
		"verdict_test.go": "package verdict\n\nimport (\n\t\"testing\"\n\n\t\"github.com/benchserve/benchserve/benchtest\"\n)\n\n" +
			"func TestWorkload(t *testing.T) { benchtest.RunWorkload(t, \"w.json\") }\n",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644), "write %s", name)
	}

	srv := fixtures.New(fixtures.Options{})
	defer srv.Close()
	goTest := func() (string, bool) {
		args := []string{"test"}
		if raceEnabled {
			// Built as this test binary was, the user's test links the
			// packages this run already compiled instead of compiling
			// them all again.
			args = append(args, "-race")
		}
		cmd := exec.Command(goBin, append(args, ".")...)
		cmd.Dir = dir
		var env []string
		for _, kv := range os.Environ() {
			// The developer's GOFLAGS (-count=1 would hide the
			// problem) and BENCHSERVE_* settings stay out.
			if !strings.HasPrefix(kv, "BENCHSERVE_") && !strings.HasPrefix(kv, "GOFLAGS=") {
				env = append(env, kv)
			}
		}
		// Offline: every module comes from the module cache this
		// checkout was built with.
		cmd.Env = append(env, "BENCHSERVE_URL="+srv.URL, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}

	out, ok := goTest()
	require.True(t, ok, "first run passes against the server: %s", out)
	assert.NotContains(t, out, "(cached)", "first run really ran")
	srv.Close()
	out, ok = goTest()
	assert.False(t, ok, "with the server stopped the run must fail: %s", out)
	assert.NotContains(t, out, "(cached)", "never a cached verdict: %s", out)
	assert.Contains(t, out, "connection refused", "it failed because the server is gone: %s", out)
}
