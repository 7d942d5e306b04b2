package serverinfo

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// Redacted replaces every secret RedactURL removes.
const Redacted = "xxxxx"

// secretWords are the words (compared case-insensitively) that make a
// query parameter a secret when its name is one of them or has one among
// its words ("auth_token", "x-api-key", "apiKey", "X-Amz-Signature"):
// names are split at non-alphanumerics and camelCase humps, so "monkey"
// and "keyboard" are not secrets.
var secretWords = map[string]bool{
	"key": true, "apikey": true, "token": true, "accesstoken": true, "authtoken": true,
	"auth": true, "password": true, "passwd": true, "pwd": true, "secret": true,
	"sig": true, "signature": true, "credential": true, "credentials": true,
}

// userinfoRE matches a "user:password@" part wherever a URL would have
// it, with or without a scheme, parsed or not: at the start
// ("alice:PW@host"), after "//" ("http://…", "http//…"), after a "/" or
// a space. The password runs to the last "@" (as Go's parser takes it),
// "/" and "@" included, since a password written unescaped may hold
// them; it does not start with "/", so "http://user@host" keeps its
// scheme. Groups: the lead, the user.
var userinfoRE = regexp.MustCompile(`(^|//|/|\s)([^/@:?#\s]*):((?:[^/@].*)?)@`)

// paramRE matches a parameter, "name=value", in a query or a fragment
// ("?api_key=K", "#token=T", "&auth=A"), parsed or not. Groups: the
// separator, the name, the value.
var paramRE = regexp.MustCompile(`([?&#;])([^=?&#;\s]+)=([^&#;\s]*)`)

// isSecretParam reports whether a query parameter named name carries a
// secret (see secretWords).
func isSecretParam(name string) bool {
	if secretWords[strings.ToLower(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, name))] {
		return true
	}
	rs := []rune(name)
	start := 0
	for i := 0; i <= len(rs); i++ {
		split := i == len(rs) || !(unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
		hump := !split && i > start && unicode.IsUpper(rs[i]) &&
			(!unicode.IsUpper(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]))
		if split || hump {
			if i > start && secretWords[strings.ToLower(string(rs[start:i]))] {
				return true
			}
			start = i
			if split {
				start = i + 1
			}
		}
	}
	return false
}

// secretParams returns the matches of paramRE in s whose names are
// secrets, as paramRE's submatches.
func secretParams(s string) [][]string {
	var out [][]string
	for _, m := range paramRE.FindAllStringSubmatch(s, -1) {
		if isSecretParam(m[2]) {
			out = append(out, m)
		}
	}
	return out
}

// RedactURL returns raw with its secrets replaced by Redacted, for
// printing or storing a URL a user gave, whether or not it parses as a
// URL: the password of a userinfo, with or without a scheme
// ("http://user:secret@host", "http//user:secret@host" and
// "user:secret@host" → "…user:xxxxx@host", as Go's url.URL.Redacted),
// and the values of the parameters whose names are or hold a secret word
// (key, apikey, token, auth, password, passwd, pwd, secret, sig,
// signature, credential, any case: "api_key", "x-api-key", "auth_token",
// "client_secret") in the query or the fragment ("host:8080?api_key=K",
// "http://host/#token=T").
// Everything else is kept as written, parameter order included.
// RedactURL is idempotent. It is the one redactor: every URL benchserve
// echoes goes through it (or through SecretReplacer, built on it).
func RedactURL(raw string) string {
	out := userinfoRE.ReplaceAllString(raw, "${1}${2}:"+Redacted+"@")
	return paramRE.ReplaceAllStringFunc(out, func(p string) string {
		m := paramRE.FindStringSubmatch(p)
		if !isSecretParam(m[2]) {
			return p
		}
		return m[1] + m[2] + "=" + Redacted
	})
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
	for _, m := range secretParams(raw) {
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
