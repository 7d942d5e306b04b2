package serverinfo

import (
	"net/url"
	"regexp"
	"strings"
)

// Redacted replaces every secret RedactURL removes.
const Redacted = "xxxxx"

// secretParams are the query parameter names (compared
// case-insensitively) whose values RedactURL replaces.
var secretParams = []string{"key", "api_key", "apikey", "api-key", "token", "access_token", "auth", "password", "secret"}

// userinfoRE matches a "user:password@" part wherever a URL would have
// it, with or without a scheme, parsed or not: at the start
// ("alice:PW@host"), after "//" ("http://…", "http//…"), after a "/" or
// a space. Groups: the lead, the user.
var userinfoRE = regexp.MustCompile(`(^|//|/|\s)([^/@:?#\s]*):([^/@]*)@`)

// secretParamRE matches a secret parameter, "name=value", in a query or
// a fragment ("?api_key=K", "#token=T", "&auth=A"), parsed or not.
// Groups: the separator, the name, the value.
var secretParamRE = regexp.MustCompile(`(?i)([?&#;])(` + strings.Join(quoteAll(secretParams), "|") + `)=([^&#;\s]*)`)

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = regexp.QuoteMeta(s)
	}
	return out
}

// RedactURL returns raw with its secrets replaced by Redacted, for
// printing or storing a URL a user gave, whether or not it parses as a
// URL: the password of a userinfo, with or without a scheme
// ("http://user:secret@host", "http//user:secret@host" and
// "user:secret@host" → "…user:xxxxx@host", as Go's url.URL.Redacted),
// and the values of the parameters named key, api_key, apikey, api-key,
// token, access_token, auth, password or secret (any case) in the query
// or the fragment ("host:8080?api_key=K", "http://host/#token=T").
// Everything else is kept as written, parameter order included.
// RedactURL is idempotent. It is the one redactor: every URL benchserve
// echoes goes through it (or through SecretReplacer, built on it).
func RedactURL(raw string) string {
	out := userinfoRE.ReplaceAllString(raw, "${1}${2}:"+Redacted+"@")
	return secretParamRE.ReplaceAllString(out, "${1}${2}="+Redacted)
}

// SecretReplacer returns a replacer that redacts raw's secrets wherever
// they appear in a text (an error message, a log line): raw itself →
// RedactURL(raw), "user:password@" in its raw and decoded spellings →
// "user:xxxxx@", each secret parameter's "name=value" (raw and decoded)
// → "name=xxxxx", and each of keys (an API key, which some servers echo
// in their error messages) of 4 bytes or more → "xxxxx". raw need not
// parse as a URL. It returns nil when there is no secret. Use it to
// filter the output of code that prints the URL it was given, e.g.
// net/http errors (which hide only the password) or wrapped errors.
func SecretReplacer(raw string, keys ...string) *strings.Replacer {
	var pairs []string
	if red := RedactURL(raw); red != raw {
		pairs = append(pairs, raw, red)
	}
	for _, k := range keys {
		// An API key a server echoes back in its error message (some
		// quote the Authorization header); too short a key would match
		// ordinary text.
		if len(k) >= 4 {
			pairs = append(pairs, k, Redacted)
		}
	}
	for _, m := range userinfoRE.FindAllStringSubmatch(raw, -1) {
		user, pw := m[2], m[3]
		if pw == Redacted {
			continue
		}
		hidden := user + ":" + Redacted + "@"
		pairs = append(pairs, user+":"+pw+"@", hidden)
		if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
			pairs = append(pairs, user+":"+dec+"@", hidden)
		}
		if dec, err := url.PathUnescape(user); err == nil && dec != user {
			pairs = append(pairs, dec+":"+pw+"@", hidden)
		}
	}
	for _, m := range secretParamRE.FindAllStringSubmatch(raw, -1) {
		name, v := m[2], m[3]
		if v == "" || v == Redacted {
			continue
		}
		pairs = append(pairs, name+"="+v, name+"="+Redacted)
		if dv, err := url.QueryUnescape(v); err == nil && dv != v {
			pairs = append(pairs, name+"="+dv, name+"="+Redacted)
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return strings.NewReplacer(pairs...)
}
