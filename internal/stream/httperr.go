package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/openai"
)

// readHTTPError builds the *HTTPError for a non-2xx response, reading at
// most errorBodyRead bytes of its body.
func readHTTPError(resp *http.Response) *HTTPError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyRead))
	he := &HTTPError{StatusCode: resp.StatusCode}
	msg := ""
	if isHTML(resp.Header.Get("Content-Type"), b) {
		msg = htmlMessage(b)
	} else {
		msg = errorBodyMessage(b)
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		he.Location = resp.Header.Get("Location")
		loc := he.Location
		if loc == "" {
			loc = "(no Location header)"
		}
		m := "redirect to " + loc + " not followed (a POST is never redirected silently; fix the base URL)"
		if msg != "" {
			m += ": " + msg
		}
		msg = m
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	msg = truncateUTF8(msg, errorBodyLimit)
	if resp.StatusCode == http.StatusUnauthorized {
		if a := resp.Header.Get("WWW-Authenticate"); a != "" {
			he.Authenticate = a
			msg += " (WWW-Authenticate: " + truncateUTF8(a, 256) + ")"
		}
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		he.RetryAfter = parseRetryAfter(ra, time.Now())
		msg += " (Retry-After: " + truncateUTF8(ra, 64) + ")"
	}
	he.Message = msg
	return he
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP-date
// (RFC 9110 10.2.3), as a wait from now; 0 when unreadable or past.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 || n > 1<<31 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

var (
	htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	htmlDrop  = regexp.MustCompile(`(?is)<(script|style)[^>]*>.*?</(script|style)>|<!--.*?-->`)
	htmlTag   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// isHTML reports whether an error body is an HTML page (a proxy's or load
// balancer's error page rather than the server's JSON).
func isHTML(ctype string, b []byte) bool {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(ctype)), "text/html") {
		return true
	}
	t := bytes.ToLower(bytes.TrimSpace(b[:min(len(b), 64)]))
	return bytes.HasPrefix(t, []byte("<!doctype html")) || bytes.HasPrefix(t, []byte("<html"))
}

// htmlMessage reduces an HTML error page to one line: its <title>, else
// its text without tags, whitespace collapsed, entities unescaped.
func htmlMessage(b []byte) string {
	if m := htmlTitle.FindSubmatch(b); m != nil {
		if s := collapse(html.UnescapeString(string(htmlTag.ReplaceAll(m[1], nil)))); s != "" {
			return s
		}
	}
	text := htmlTag.ReplaceAll(htmlDrop.ReplaceAll(b, []byte(" ")), []byte(" "))
	return collapse(html.UnescapeString(string(text)))
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// errorBodyMessage is the server's message in an error body
// (openai.ErrorMessage, the one reader), at most errorBodyLimit bytes.
func errorBodyMessage(b []byte) string { return openai.ErrorMessage(b, errorBodyLimit) }

// serverError builds a *ServerError from the value of an in-stream error:
// a JSON string, an object with message/code/type (or a nested "error"), or
// plain text. errType is TGI's top-level "error_type", used as the code when
// the object has none.
func serverError(raw, errType []byte) *ServerError {
	raw = bytes.TrimSpace(raw)
	se := &ServerError{Code: string(errType)}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		se.Message = truncateUTF8(string(raw), errorBodyLimit)
		return se
	}
	if obj, ok := v.(map[string]any); ok {
		if inner, ok := obj["error"]; ok && inner != nil {
			if _, isObj := inner.(map[string]any); isObj {
				obj = inner.(map[string]any)
			} else if s, isStr := inner.(string); isStr {
				if et, ok := obj["error_type"].(string); ok && se.Code == "" {
					se.Code = et
				}
				se.Message = s
				return se
			}
		}
		if c := scalarString(obj["code"]); c != "" {
			se.Code = c
		} else if t := scalarString(obj["type"]); t != "" && se.Code == "" {
			se.Code = t
		}
		if m, ok := obj["message"].(string); ok && m != "" {
			se.Message = truncateUTF8(m, errorBodyLimit)
			return se
		}
	}
	if s, ok := v.(string); ok {
		se.Message = truncateUTF8(s, errorBodyLimit)
		return se
	}
	se.Message = truncateUTF8(string(raw), errorBodyLimit)
	return se
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64, bool:
		return fmt.Sprint(x)
	}
	return ""
}

// truncateUTF8 cuts s to at most n bytes on a rune boundary, marking the
// cut (openai.Truncate).
func truncateUTF8(s string, n int) string { return openai.Truncate(s, n) }
