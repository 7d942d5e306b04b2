package suggest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A typo within a quarter of the name's length, or a case difference,
// gets the closest candidate; anything else gets nothing.
func TestClosest(t *testing.T) {
	known := []string{"finish_reason", "json_schema", "min_chars", "required_regex", "tool_call_names"}
	for in, want := range map[string]string{
		"min_char": "min_chars", "MIN_CHARS": "min_chars", "finish_reasons": "finish_reason",
		"requiredregex": "required_regex", "tool_call_name": "tool_call_names", "x": "", "colour": "",
		"jsón_schema": "json_schema",
	} {
		assert.Equalf(t, want, Closest(in, known), "Closest(%q)", in)
	}
	assert.Equal(t, "", Closest("user", nil), "no candidates, no suggestion")
}
