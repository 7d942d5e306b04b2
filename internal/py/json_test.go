package py

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Expected texts are CPython 3.11's json.dumps(json.loads(lit)) and
// json.dumps(s) (ensure_ascii).
func TestJSONNumberMatchesPythonDumps(t *testing.T) {
	for lit, want := range map[string]string{
		"5": "5", "12345678901234567890": "12345678901234567890", "0.20": "0.2",
		"1e3": "1000.0", "1E-7": "1e-07", "2.5e16": "2.5e+16", "1e999": "null",
	} {
		assert.Equal(t, want, JSONNumber(lit), "JSONNumber(%q)", lit)
	}
}

func TestNumberStrMatchesPythonStr(t *testing.T) {
	for lit, want := range map[string]string{
		"5": "5", "-0": "0", "0.20": "0.2", "1e3": "1000.0", "1e999": "inf", "1e-5": "1e-05",
	} {
		assert.Equal(t, want, NumberStr(lit), "NumberStr(%q)", lit)
	}
}

func TestWriteJSONStringEnsuresASCII(t *testing.T) {
	var b bytes.Buffer
	WriteJSONString(&b, "a\"\\\n\r\t\b\f\x01é\U0001F600\xff")
	assert.Equal(t, `"a\"\\\n\r\t\b\f\u0001\u00e9\ud83d\ude00\ufffd"`, b.String())
}
