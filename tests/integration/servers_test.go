package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The server software the tests know, as the runner's runtime detection
// names it.
const (
	kindOllama   = "ollama"
	kindLlamaCpp = "llama.cpp"
)

// serverID is the software and version of the server under test, as the
// server itself reports them: Ollama's GET /api/version, llama-server's
// GET /props build_info ("b<build>-<commit>"; Version is the commit, which
// is what a build from a source archive without history can tell).
type serverID struct {
	Kind    string
	Version string
}

// String is how pins and messages name the server: "ollama 0.17.4",
// "llama.cpp c2b1518fd".
func (s serverID) String() string { return s.Kind + " " + s.Version }

var (
	idMu  sync.Mutex
	idFor = map[string]serverID{}
)

// identify returns the server at url, asking it once per test binary;
// it fails t for a server that is neither Ollama nor llama-server.
func identify(t *testing.T, url string) serverID {
	t.Helper()
	idMu.Lock()
	defer idMu.Unlock()
	if id, ok := idFor[url]; ok {
		return id
	}
	var id serverID
	switch {
	case getJSON(t, url+"/api/version", &struct {
		Version *string `json:"version"`
	}{Version: &id.Version}):
		id.Kind = kindOllama
	case getJSON(t, url+"/props", &struct {
		BuildInfo *string `json:"build_info"`
	}{BuildInfo: &id.Version}):
		id.Kind = kindLlamaCpp
		// "b0-c2b1518fd": the commit is what identifies the source.
		if _, commit, ok := strings.Cut(id.Version, "-"); ok {
			id.Version = commit
		}
	default:
		require.FailNowf(t, "unknown server", "the server at %s answers neither GET /api/version (Ollama) nor GET /props (llama-server): these tests pin what those two do", url)
	}
	idFor[url] = id
	return id
}

// getJSON decodes a 200 answer to GET url into v and reports whether
// there was one.
func getJSON(t *testing.T, url string, v any) bool {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err, "build GET %s", url)
	resp, err := plainHTTP.Do(req)
	require.NoError(t, err, "GET %s", url)
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(v) == nil
}

// only skips t unless the server under test is of kind, saying where the
// other server's behaviour is pinned instead.
func only(t *testing.T, url, kind, instead string) serverID {
	t.Helper()
	id := identify(t, url)
	if id.Kind != kind {
		t.Skipf("%s behaviour; the server is %s (%s)", kind, id, instead)
	}
	return id
}
