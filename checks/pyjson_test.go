package checks

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPyJSONErrorMatchesPython replays testdata/pyjson_errors.json, the
// messages CPython's json.loads gives for each document (regenerate with
// testdata/gen_pyjson_errors.py): the message, line, column and char offset
// must be Python's, character for character.
// testdata/pyjson_mutations.json (testdata/gen_pyjson_mutations.py) adds
// 600 valid documents mutated at random, with CPython's verdict on each.
func TestPyJSONErrorMatchesPython(t *testing.T) {
	for _, file := range []string{"testdata/pyjson_errors.json", "testdata/pyjson_mutations.json"} {
		data, err := os.ReadFile(file)
		require.NoError(t, err, "reading %s", file)
		var cases []struct{ Doc, Error string }
		require.NoError(t, json.Unmarshal(data, &cases), "decoding %s", file)
		require.Greater(t, len(cases), 50, "%s covers the common errors", file)
		for _, tc := range cases {
			got := ""
			if err := pyJSONError(tc.Doc); err != nil {
				got = err.Error()
			}
			assert.Equalf(t, tc.Error, got, "%s: json.loads(%q)", file, tc.Doc)
		}
	}
}

// TestPyJSONErrorTable pins the messages the issue names, as CPython gives them.
func TestPyJSONErrorTable(t *testing.T) {
	for doc, want := range map[string]string{
		"not json":                 "Expecting value: line 1 column 1 (char 0)",
		"{bad":                     "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
		`{"a":1}x`:                 "Extra data: line 1 column 8 (char 7)",
		`{"a": "open`:              "Unterminated string starting at: line 1 column 7 (char 6)",
		`[1 2]`:                    "Expecting ',' delimiter: line 1 column 4 (char 3)",
		`{"a" 1}`:                  "Expecting ':' delimiter: line 1 column 6 (char 5)",
		"\"a\tb\"":                 "Invalid control character at: line 1 column 3 (char 2)",
		"{\n \"é\": 1\n \"b\": 2}": "Expecting ',' delimiter: line 3 column 2 (char 11)",
	} {
		err := pyJSONError(doc)
		if assert.Errorf(t, err, "json.loads(%q) fails", doc) {
			assert.Equalf(t, want, err.Error(), "json.loads(%q)", doc)
		}
	}
	assert.NoError(t, pyJSONError(`{"a": [1, 2.5e-3, NaN, -Infinity, "\ud800"]}`), "Python's extensions parse")
}
