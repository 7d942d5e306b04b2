package serverinfo_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/serverinfo"
)

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://user:secret@host:8080/v1", "http://user:xxxxx@host:8080/v1"},
		{"http://user@host", "http://user@host"},
		{"https://host/v1?api_key=sk-123&model=x&Token=abc", "https://host/v1?api_key=xxxxx&model=x&Token=xxxxx"},
		{"http://host?access_token=a%20b&key=k", "http://host?access_token=xxxxx&key=xxxxx"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"http://u:p%40ss@host", "http://u:xxxxx@host"},
		{"http://u:se cret@host/%zz", "http://u:xxxxx@host/%zz"},
		// Not URLs url.Parse accepts as such, echoed all the same.
		{"http//alice:PW@host:8080", "http//alice:xxxxx@host:8080"},
		{"alice:PW@host:8080", "alice:xxxxx@host:8080"},
		{"host:8080?api_key=K", "host:8080?api_key=xxxxx"},
		{"127.0.0.1:8080?x=1&token=T", "127.0.0.1:8080?x=1&token=xxxxx"},
		{"http://host:8080/#token=T", "http://host:8080/#token=xxxxx"},
		{"http://host/#x=1&access_token=T", "http://host/#x=1&access_token=xxxxx"},
		{"http://host:8080/v1?monkey=banana", "http://host:8080/v1?monkey=banana"},
		// A password holding "/" or "@" (unescaped): Go's parser fails on the
		// first and takes the last "@" for the second; all of it is hidden.
		{"http://alice:pa/ss@host:8080", "http://alice:xxxxx@host:8080"},
		{"http://alice:p@ss@host:8080", "http://alice:xxxxx@host:8080"},
		{"http://[::1]:8080@alice:PW@host", "http://[:xxxxx@host"},
		{"http://user@host:8080", "http://user@host:8080"},
		// Secret parameters by the words of their names, in any spelling.
		{"http://host?auth_token=A&api_token=B&client_secret=C", "http://host?auth_token=xxxxx&api_token=xxxxx&client_secret=xxxxx"},
		{"http://host?x-api-key=A&apiKey=B&private_token=C&sig=D", "http://host?x-api-key=xxxxx&apiKey=xxxxx&private_token=xxxxx&sig=xxxxx"},
		{"http://host?passwd=A&X-Amz-Signature=B&keyboard=qwerty", "http://host?passwd=xxxxx&X-Amz-Signature=xxxxx&keyboard=qwerty"},
	} {
		got := serverinfo.RedactURL(tc.in)
		assert.Equal(t, tc.want, got, "RedactURL(%q)", tc.in)
		assert.Equal(t, got, serverinfo.RedactURL(got), "idempotent on %q", tc.in)
	}
}

func TestSecretReplacer(t *testing.T) {
	assert.Nil(t, serverinfo.SecretReplacer("http://127.0.0.1:8080"), "nothing to redact")
	r := serverinfo.SecretReplacer("http://al:p%40ss@host:1?token=t0k")
	require.NotNil(t, r, "secrets present")
	text := `Post "http://al:p%40ss@host:1?token=t0k/v1/chat": dial; later al:p@ss@host and token=t0k`
	got := r.Replace(text)
	assert.NotContains(t, got, "p%40ss", "escaped password gone")
	assert.NotContains(t, got, "p@ss", "decoded password gone")
	assert.NotContains(t, got, "t0k", "token gone")
	assert.Contains(t, got, "al:xxxxx@host", "user and host kept")
}

func TestSecretReplacerOfAMalformedURL(t *testing.T) {
	for _, raw := range []string{"http//alice:PW@host:9", "alice:PW@host:9", "host:9?api_key=K3Y", "http://host:9/#token=T0K"} {
		r := serverinfo.SecretReplacer(raw)
		require.NotNil(t, r, "%q carries a secret", raw)
		got := r.Replace(`server URL "http://` + raw + `": bad; also ` + raw)
		for _, secret := range []string{"PW@", "K3Y", "T0K"} {
			assert.NotContains(t, got, secret, "%q: the secret is gone from %q", raw, got)
		}
	}
}

func TestNormalizeBaseURLErrorsHideThePassword(t *testing.T) {
	for _, raw := range []string{"ftp://u:hunter2@host", "http://u:hunter2@host/?x=1", "http://u:hunter2@[::1",
		"http://u:hun/ter2@host:9", "http://host:9?auth_token=hunter2", "http://host:9/#client_secret=hunter2",
		"http//u:hunter2@host:9", "u:hunter2@host:9", "host:9?api_key=hunter2", "http://host:9/#token=hunter2"} {
		_, err := serverinfo.NormalizeBaseURL(raw)
		require.Error(t, err, raw)
		assert.NotContains(t, err.Error(), "hunter2", "the error quotes the redacted URL: %v", err)
		assert.NotContains(t, err.Error(), "ter2", "no piece of the secret either: %v", err)
	}
}
