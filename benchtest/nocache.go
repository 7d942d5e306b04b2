package benchtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// noCacheFile is the marker file RunWorkload touches in the test's
// working directory (the package directory under go test) after a run
// against a real server, so that go test never answers a later run from
// its cache.
//
// Why: go test caches a passing result keyed by the test binary, its
// flags, the environment variables it read and the files it opened; it
// cannot see the network, so after the server was stopped a run would
// still print "ok (cached)". cmd/go refuses to cache a result when a
// regular file the test opened inside the module was modified less than
// 2 seconds before the result is saved (modTimeCutoff in
// cmd/go/internal/test; files outside the module, such as os.TempDir or
// os.UserCacheDir, are not checked at all, so the marker has to live in
// the module). The marker's modification time is set an hour ahead, so it
// stays "too new" however long the rest of the test binary runs after
// RunWorkload returns. The file is harmless and may be deleted or listed
// in .gitignore.
const noCacheFile = ".benchserve-nocache"

// noCacheTTL is how far ahead the marker's modification time is set.
const noCacheTTL = time.Hour

const noCacheText = "benchserve: this file keeps go test from caching a run against a real server\n" +
	"(its modification time is set ahead). It may be deleted or added to .gitignore.\n"

// defeatTestCache touches and opens noCacheFile (see there). It returns
// an error when the working directory is not writable; the run is then
// cacheable and the caller says so.
func defeatTestCache() error {
	path, err := filepath.Abs(noCacheFile)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(noCacheText), 0o644); err != nil {
		return err
	}
	ahead := time.Now().Add(noCacheTTL)
	if err := os.Chtimes(path, ahead, ahead); err != nil {
		return err
	}
	// The open is what go test records as an input of the run.
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// noCache runs defeatTestCache for a run against a real server (cfg.URL
// set); a run against the embedded fixture may be cached, since its
// server is part of the test binary.
func noCache(t testing.TB, cfg config) {
	if cfg.url == "" {
		return
	}
	if err := defeatTestCache(); err != nil {
		say(t).Logf("benchtest: cannot mark this run uncacheable (%v): go test may answer a later run from its cache; use -count=1", err)
	}
}
