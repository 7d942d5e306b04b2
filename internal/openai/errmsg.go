package openai

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// ErrorMessage is the one reader of a server's error message in a
// response body, for every request benchserve makes (chat, probes, cache
// resets): OpenAI's {"error": {"message": …}} (or a nested "error"),
// {"error": "…"}, FastAPI's {"detail": …} (a non-string detail as JSON),
// {"message": …}; else the trimmed text. The result is at most maxBytes
// bytes, cut on a code point boundary and marked "…" (Truncate); 0 means
// no limit. "" when the body says nothing.
func ErrorMessage(body []byte, maxBytes int) string {
	body = bytes.TrimSpace(body)
	var v map[string]any
	if json.Unmarshal(body, &v) == nil && v != nil {
		if m := ErrorMessageOf(v); m != "" {
			return Truncate(m, maxBytes)
		}
	}
	return Truncate(strings.TrimSpace(string(body)), maxBytes)
}

// ErrorMessageOf is ErrorMessage on a decoded JSON object (without
// the text fallback and the limit): "" when it holds no message.
func ErrorMessageOf(v map[string]any) string {
	if m, ok := messageFrom(v["error"]); ok {
		return m
	}
	if m, ok := messageFrom(v["detail"]); ok {
		return m
	}
	if m, ok := v["message"].(string); ok {
		return m
	}
	return ""
}

// messageFrom reads a message out of an "error" or "detail" value.
func messageFrom(v any) (string, bool) {
	switch e := v.(type) {
	case nil:
		return "", false
	case string:
		return e, e != ""
	case map[string]any:
		if m, ok := e["message"].(string); ok && m != "" {
			return m, true
		}
		if m, ok := messageFrom(e["error"]); ok {
			return m, true
		}
	}
	j, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(j), true
}

// Truncate cuts s to at most n bytes on a code point boundary (never
// splitting a UTF-8 sequence), marking a cut with "…"; n <= 0 keeps s.
// Invalid UTF-8 in the kept part is dropped.
func Truncate(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], "") + "…"
}
