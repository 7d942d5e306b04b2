package serverinfo

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces every secret RedactURL removes.
const Redacted = "xxxxx"

// secretParams are the query parameter names (compared
// case-insensitively) whose values RedactURL replaces.
var secretParams = []string{"key", "api_key", "apikey", "api-key", "token", "access_token", "auth", "password", "secret"}

// userinfoPassword matches "//user:password@" in a string url.Parse
// rejects.
var userinfoPassword = regexp.MustCompile(`(//[^/@:\s]*):[^/]*@`)

// RedactURL returns raw with its secrets replaced by Redacted, for
// printing or storing a URL a user gave: the password of its userinfo
// ("http://user:secret@host" → "http://user:xxxxx@host", as Go's
// url.URL.Redacted) and the values of the query parameters named key,
// api_key, apikey, api-key, token, access_token, auth, password or secret
// (any case). Everything else is kept as written, parameter order
// included. A string that does not parse as a URL still has a
// "//user:password@" part redacted. RedactURL is idempotent.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return userinfoPassword.ReplaceAllString(raw, "${1}:"+Redacted+"@")
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Redacted)
			changed = true
		}
	}
	if u.RawQuery != "" {
		if q, ok := redactQuery(u.RawQuery); ok {
			u.RawQuery = q
			changed = true
		}
	}
	if !changed {
		return raw
	}
	return u.String()
}

// redactQuery replaces the values of secret parameters in a raw query,
// keeping its order; ok reports whether anything changed.
func redactQuery(raw string) (string, bool) {
	parts := strings.Split(raw, "&")
	ok := false
	for i, p := range parts {
		k, v, has := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if has && v != Redacted && isSecretParam(name) {
			parts[i] = k + "=" + Redacted
			ok = true
		}
	}
	return strings.Join(parts, "&"), ok
}

func isSecretParam(name string) bool {
	return slices.Contains(secretParams, strings.ToLower(name))
}

// SecretReplacer returns a replacer that redacts raw's secrets wherever
// they appear in a text (an error message, a log line): raw itself →
// RedactURL(raw), "user:password@" in its raw and decoded spellings →
// "user:xxxxx@", each secret query parameter's "name=value" →
// "name=xxxxx", and each of keys (an API key, which some servers echo in
// their error messages) of 4 bytes or more → "xxxxx". It returns nil when
// there is no secret. Use it to
// filter the output of code that prints the URL it was given, e.g.
// net/http errors (which hide only the password) or wrapped errors.
func SecretReplacer(raw string, keys ...string) *strings.Replacer {
	u, err := url.Parse(raw)
	if err != nil {
		u = &url.URL{}
	}
	var pairs []string
	for _, k := range keys {
		// An API key a server echoes back in its error message (some
		// quote the Authorization header); too short a key would match
		// ordinary text.
		if len(k) >= 4 {
			pairs = append(pairs, k, Redacted)
		}
	}
	if red := RedactURL(raw); red != raw {
		pairs = append(pairs, raw, red)
	}
	if u.User != nil {
		if pw, has := u.User.Password(); has && pw != Redacted {
			name := u.User.Username()
			raw := u.User.String() // escaped "user:password"
			pairs = append(pairs, raw+"@", url.UserPassword(u.User.Username(), Redacted).String()+"@",
				name+":"+pw+"@", name+":"+Redacted+"@")
		}
	}
	for _, p := range strings.Split(u.RawQuery, "&") {
		k, v, has := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if has && v != "" && v != Redacted && isSecretParam(name) {
			pairs = append(pairs, p, k+"="+Redacted)
			if dv, err := url.QueryUnescape(v); err == nil && dv != v {
				pairs = append(pairs, k+"="+dv, k+"="+Redacted)
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return strings.NewReplacer(pairs...)
}
