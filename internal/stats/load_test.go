package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Loads print with up to 3 decimals; huge ones in exponent form.
func TestFormatLoad(t *testing.T) {
	assert.Equal(t, "10.333", FormatLoad(10.33333))
	assert.Equal(t, "12", FormatLoad(12))
	assert.Equal(t, "999999.5", FormatLoad(999999.5))
	assert.Equal(t, "1e+300", FormatLoad(1e300), "not 301 digits")
}
