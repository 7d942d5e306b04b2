package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/fixtures"
)

func TestURLNormalized(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	res := invoke(t, "--url", srv.URL+"/v1", "--workload", smoke, "--repetitions", "1", "--format", "csv")
	assert.Equal(t, ExitOK, res.code, "an OpenAI-style .../v1 base URL works in workload mode")
	assert.Equal(t, 4, strings.Count(res.stdout, "\r\n"), "header and 3 records")

	res = invoke(t, "--url", srv.URL+"/v1/", "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0")
	assert.Equal(t, ExitOK, res.code, "and in sweep mode")
	assert.Contains(t, res.stderr, "Connecting to "+srv.URL+"...\n", "the normalized URL is used")

	for _, mode := range [][]string{{"--workload", smoke}, {"--prompts", "short"}} {
		res = invoke(t, append([]string{"--url", "127.0.0.1:8080"}, mode...)...)
		assert.Equal(t, ExitUsage, res.code, "a URL without scheme is a usage error (%s)", mode[0])
		assert.Contains(t, res.stderr, `benchserve: --url: server URL "127.0.0.1:8080": want http:// or https:// and a host`, "clear message (%s)", mode[0])
		assert.NotContains(t, res.stderr, "cannot reach", "no connection attempted (%s)", mode[0])
	}
}

// A --url that is not a URL still has its secrets redacted wherever the
// CLI echoes it: userinfo with or without a scheme, a key in the query,
// a token in the fragment.
func TestMalformedURLSecretsNeverEchoed(t *testing.T) {
	for _, tc := range []struct{ name, url, secret string }{
		{"userinfo without the scheme's colon", "http//alice:PW1234@127.0.0.1:9", "PW1234"},
		{"userinfo without a scheme", "alice:PW1234@127.0.0.1:9", "PW1234"},
		{"key in the query", "127.0.0.1:9?api_key=K3Y123", "K3Y123"},
		{"token in the fragment", "http://127.0.0.1:9/#token=T0K123", "T0K123"},
		{"password holding a slash", "http://alice:PW12/34@127.0.0.1:9", "34@"},
		{"auth_token in the query", "http://127.0.0.1:9?auth_token=T0K123", "T0K123"},
		{"client_secret in the fragment", "http://127.0.0.1:9/#client_secret=S3C123", "S3C123"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, args := range [][]string{
				{"--url", tc.url, "--workload", smoke},
				{"--url", tc.url, "--prompts", "short"},
				{"capacity", "--url", tc.url, "--workload", smoke, "--slo", "ttft_p95_ms <= 100"},
				{"conformance", "--url", tc.url},
			} {
				res := invoke(t, args...)
				assert.Equal(t, ExitUsage, res.code, "%v: a usage error", args)
				assert.NotContains(t, res.stderr+res.stdout, tc.secret, "%v: the secret is not echoed", args)
				assert.Contains(t, res.stderr, "xxxxx", "%v: the URL is echoed redacted", args)
			}
		})
	}
}
