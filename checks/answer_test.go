package checks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidateSaysWhatTheEmptyAnswerWas: an empty content with a refusal
// or with reasoning is reported as what it is, not "Empty response
// content"; a plain empty answer keeps the reference's text.
func TestValidateSaysWhatTheEmptyAnswerWas(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Response
		want string
	}{
		{"refusal", Response{StatusCode: 200, FinishReason: "stop", Refusal: "I can't help with that."}, "refused: I can't help with that."},
		{"long refusal", Response{StatusCode: 200, FinishReason: "stop", Refusal: strings.Repeat("é", 250)}, "refused: " + strings.Repeat("é", 200) + "…"},
		{"reasoning only", Response{StatusCode: 200, FinishReason: "stop", Reasoning: "héllo wörld"}, "the answer was reasoning only: 11 chars of reasoning, no content"},
		{"reasoning only, length", Response{StatusCode: 200, FinishReason: "length", Reasoning: "abc"}, "Truncated (finish_reason=length): the answer was reasoning only: 3 chars of reasoning, no content"},
		{"empty", Response{StatusCode: 200, FinishReason: "stop"}, "Empty response content"},
		{"length with content", Response{StatusCode: 200, FinishReason: "length", Content: "x", Reasoning: "abc"}, "Truncated (finish_reason=length)"},
	} {
		ok, msg := Validate(tc.r)
		assert.False(t, ok, "%s: must fail", tc.name)
		assert.Equal(t, tc.want, msg, "%s: issue text", tc.name)
	}
	ok, _ := Validate(Response{StatusCode: 200, FinishReason: "stop", Content: "x", Reasoning: "r"})
	assert.True(t, ok, "content with reasoning passes")
}
