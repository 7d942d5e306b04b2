package traces

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readAll(t *testing.T, r Reader) ([]Request, error) {
	t.Helper()
	var out []Request
	for {
		q, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, q)
	}
}

func TestMooncakeReadsEveryLine(t *testing.T) {
	const trace = `{"timestamp": 0, "input_length": 1030, "output_length": 50, "hash_ids": [0, 1, 2]}

{"timestamp": 0, "input_length": 600, "output_length": 7, "hash_ids": [0, 3], "extra": "ignored"}
{"timestamp": 3052.5, "input_length": 9, "output_length": 1}
`
	got, err := readAll(t, NewMooncake(strings.NewReader(trace), "t.jsonl"))
	require.NoError(t, err)
	want := []Request{
		{Line: 1, At: 0, InputTokens: 1030, OutputTokens: 50, HashIDs: []int64{0, 1, 2}},
		{Line: 3, At: 0, InputTokens: 600, OutputTokens: 7, HashIDs: []int64{0, 3}},
		{Line: 4, At: 3052500 * time.Microsecond, InputTokens: 9, OutputTokens: 1},
	}
	assert.Equal(t, want, got, "every non-blank line, numbered as in the file, timestamps in ms")
}

func TestMooncakeNamesTheBadField(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"input_length": 5, "output_length": 1}`, `t.jsonl:2: field "timestamp": missing`},
		{`{"timestamp": -1, "input_length": 5, "output_length": 1}`, `t.jsonl:2: field "timestamp": -1: want milliseconds >= 0`},
		{`{"timestamp": 5, "input_length": 5, "output_length": 1}`, `t.jsonl:2: field "timestamp": 5 is before the previous line's 10`},
		{`{"timestamp": 10, "input_length": "5", "output_length": 1}`, `t.jsonl:2: field "input_length": want an integer, got a JSON string`},
		{`{"timestamp": 10, "input_length": 2.5, "output_length": 1}`, `t.jsonl:2: field "input_length": want an integer`},
		{`{"timestamp": 10, "input_length": 0, "output_length": 1}`, `t.jsonl:2: field "input_length": 0: want at least 1 token`},
		{`{"timestamp": 10, "input_length": 5}`, `t.jsonl:2: field "output_length": missing`},
		{`{"timestamp": 10, "input_length": 5, "output_length": 1, "hash_ids": [1, -2]}`, `t.jsonl:2: field "hash_ids[1]": -2: want an id >= 0`},
		{`{"timestamp": 10, "input_length": 5, "output_length": 1, "hash_ids": [1, "a"]}`, `t.jsonl:2: field "hash_ids`},
		{`{"timestamp": 10,`, `t.jsonl:2: not a JSON object`},
	} {
		trace := `{"timestamp": 10, "input_length": 5, "output_length": 1}` + "\n" + tc.line + "\n"
		got, err := readAll(t, NewMooncake(strings.NewReader(trace), "t.jsonl"))
		var te *Error
		if assert.ErrorAs(t, err, &te, "line %s", tc.line) {
			assert.Contains(t, err.Error(), tc.want, "line %s", tc.line)
			assert.Equal(t, 2, te.Line, "line %s", tc.line)
		}
		assert.Len(t, got, 1, "the good line before the bad one was read: %s", tc.line)
	}
}

func TestMooncakeRefusesAnEndlessLine(t *testing.T) {
	long := `{"timestamp": 0, "input_length": 5, "output_length": 1, "pad": "` + strings.Repeat("x", MaxLineBytes) + `"}`
	_, err := NewMooncake(strings.NewReader(long), "t.jsonl").Next()
	assert.ErrorContains(t, err, "t.jsonl:1: line longer than 1048576 bytes", "a line past the bound is an error, not a bigger buffer")
}

func TestAzureReadsOffsetsFromTheFirstRow(t *testing.T) {
	const trace = "TIMESTAMP,ContextTokens,GeneratedTokens\n" +
		"2023-11-16 18:15:46.6805900,374,44\n" +
		"2023-11-16 18:15:50.9951690,396,109\n" +
		"2023-11-16 18:15:50.9951690,879,9\n"
	got, err := readAll(t, NewAzure(strings.NewReader(trace), "a.csv"))
	require.NoError(t, err)
	want := []Request{
		{Line: 2, At: 0, InputTokens: 374, OutputTokens: 44},
		{Line: 3, At: 4314579 * time.Microsecond, InputTokens: 396, OutputTokens: 109},
		{Line: 4, At: 4314579 * time.Microsecond, InputTokens: 879, OutputTokens: 9},
	}
	assert.Equal(t, want, got, "offsets are each TIMESTAMP minus the first row's")
}

func TestAzureColumnsInAnyOrder(t *testing.T) {
	const trace = "generatedtokens,Extra,TIMESTAMP,ContextTokens\n7,x,2024-05-10T00:00:00Z,12\n3,y,2024-05-10T00:00:01.5Z,4\n"
	got, err := readAll(t, NewAzure(strings.NewReader(trace), "a.csv"))
	require.NoError(t, err)
	assert.Equal(t, []Request{{Line: 2, InputTokens: 12, OutputTokens: 7}, {Line: 3, At: 1500 * time.Millisecond, InputTokens: 4, OutputTokens: 3}}, got, "columns found by name, RFC 3339 accepted")
}

func TestAzureNamesTheBadField(t *testing.T) {
	const head = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,10,10\n"
	for _, tc := range []struct{ body, want string }{
		{"", `a.csv:1: empty file`},
		{"TIMESTAMP,ContextTokens\n", `a.csv:1: field "GeneratedTokens": header "TIMESTAMP,ContextTokens" has no GeneratedTokens column`},
		{head + "yesterday,10,10\n", `a.csv:3: field "TIMESTAMP": "yesterday": want a date-time`},
		{head + "2023-11-16 18:15:45.0,10,10\n", `a.csv:3: field "TIMESTAMP": 2023-11-16 18:15:45.0 is before the previous row's`},
		{head + "2023-11-16 18:15:47.0,ten,10\n", `a.csv:3: field "ContextTokens": "ten": want an integer >= 1`},
		{head + "2023-11-16 18:15:47.0,10,0\n", `a.csv:3: field "GeneratedTokens": "0": want an integer >= 1`},
		{head + "2023-11-16 18:15:47.0,10\n", `a.csv:3: field "GeneratedTokens": missing: the row has 2 fields`},
		{head + "2023-11-16 18:15:47.0,\"10,10\n", `a.csv:3: `},
	} {
		_, err := readAll(t, NewAzure(strings.NewReader(tc.body), "a.csv"))
		var te *Error
		if assert.ErrorAs(t, err, &te, "body %q", tc.body) {
			assert.Contains(t, err.Error(), tc.want, "body %q", tc.body)
		}
	}
}

func TestOpenKnowsTheFormats(t *testing.T) {
	r, err := Open("mooncake", strings.NewReader(`{"timestamp":0,"input_length":1,"output_length":1}`), "x")
	require.NoError(t, err)
	n, err := Count(r)
	assert.NoError(t, err)
	assert.Equal(t, 1, n, "one request")
	_, err = Open("sharegpt", nil, "x")
	assert.EqualError(t, err, `traces: format "sharegpt": want one of mooncake, azure`)
}

func TestReuseCountsSharedLeadingBlocks(t *testing.T) {
	u := Reuse{BlockSize: 512}
	for _, tc := range []struct {
		r    Request
		want int
		why  string
	}{
		{Request{InputTokens: 1100, HashIDs: []int64{0, 1, 2}}, 0, "first request: nothing cached"},
		{Request{InputTokens: 1500, HashIDs: []int64{0, 1, 3}}, 1024, "blocks 0, 1 seen; 3 is new"},
		{Request{InputTokens: 2000, HashIDs: []int64{0, 4, 1, 3}}, 512, "reuse stops at the first new block (4)"},
		{Request{InputTokens: 300, HashIDs: []int64{0}}, 0, "a partial block is not counted"},
		{Request{InputTokens: 600, HashIDs: []int64{2}}, 0, "block 2 was partial in request 1 (1100 = 2×512 + 76), never sent whole"},
		{Request{InputTokens: 600, HashIDs: []int64{2}}, 512, "now it was"},
		{Request{InputTokens: 600}, 0, "no hash ids (Azure): no reuse"},
	} {
		got, err := u.Add("t.jsonl", tc.r)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, tc.why)
	}
	_, err := u.Add("t.jsonl", Request{Line: 9, InputTokens: 1024, HashIDs: []int64{0, MaxHashID + 1}})
	assert.EqualError(t, err, `t.jsonl:9: field "hash_ids[1]": 268435456: want an id <= 268435455 (ids are block numbers)`, "memory stays bounded")
	assert.LessOrEqual(t, len(u.seen), 1, "one word holds ids 0..63")
}
