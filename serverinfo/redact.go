package serverinfo

import "net/url"

// RedactURL returns u with any password replaced by "xxxxx" (url.URL's
// Redacted), for logs, attributes and files; a string that does not parse
// is returned unchanged.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	return p.Redacted()
}
