package openai_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/openai"
)

func TestErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		limit      int
		want       string
	}{
		{"openai", `{"error": {"message": "model not found", "type": "invalid_request_error"}}`, 0, "model not found"},
		{"nested", `{"error": {"error": "busy"}}`, 0, "busy"},
		{"string error", `{"error": "Unauthorized"}`, 0, "Unauthorized"},
		{"fastapi detail", `{"detail": [{"loc": ["body"], "msg": "field required"}]}`, 0, `[{"loc":["body"],"msg":"field required"}]`},
		{"message", `{"message": "slow down"}`, 0, "slow down"},
		{"text", "  404 page not found\n", 0, "404 page not found"},
		{"cut on a code point", strings.Repeat("é", 150), 201, strings.Repeat("é", 100) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := openai.ErrorMessage([]byte(tc.body), tc.limit)
			assert.Equal(t, tc.want, got, "the server's message")
			assert.True(t, utf8.ValidString(got), "never a split UTF-8 sequence")
		})
	}
}
