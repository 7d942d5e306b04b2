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

func TestEqualHashIDsGiveIdenticalPrefixes(t *testing.T) {
	p := Prompts{BlockSize: 16}
	a := p.Text(Request{Line: 1, InputTokens: 40, HashIDs: []int64{7, 8, 9}})
	b := p.Text(Request{Line: 2, InputTokens: 50, HashIDs: []int64{7, 8, 10, 11}})
	c := p.Text(Request{Line: 3, InputTokens: 40, HashIDs: []int64{7, 8, 9}})
	assert.Equal(t, a, c, "the same ids and length on another line: byte-identical prompts")
	wa, wb := strings.Fields(a), strings.Fields(b)
	assert.Len(t, wa, 40, "one word a token")
	assert.Len(t, wb, 50, "one word a token")
	assert.Equal(t, wa[:32], wb[:32], "ids 7, 8 shared: the first 32 words are the same")
	assert.NotEqual(t, wa[32:40], wb[32:40], "id 9 and id 10 differ")
	assert.True(t, strings.HasPrefix(b, strings.Join(append([]string{""}, wb[:32]...), " ")), "the shared blocks are a byte prefix")

	// Without hash ids (Azure) or past them, the text is the line's own.
	x := p.Text(Request{Line: 4, InputTokens: 20})
	y := p.Text(Request{Line: 5, InputTokens: 20})
	assert.NotEqual(t, x, y, "two lines without ids share nothing")
	assert.Len(t, strings.Fields(x), 20, "input_length words")
	// A last block cut short is a prefix of the full block.
	full := p.Text(Request{Line: 6, InputTokens: 16, HashIDs: []int64{9}})
	cut := p.Text(Request{Line: 7, InputTokens: 5, HashIDs: []int64{9}})
	assert.True(t, strings.HasPrefix(full, cut), "a cut block is the full block's prefix")
}

func TestExpectedCountsReusedLeadingBlocks(t *testing.T) {
	p := Prompts{BlockSize: 512}
	seen := map[int64]bool{}
	assert.Equal(t, 0, p.Expected(Request{InputTokens: 1100, HashIDs: []int64{0, 1, 2}}, seen), "first request: nothing cached")
	assert.Equal(t, 1024, p.Expected(Request{InputTokens: 1500, HashIDs: []int64{0, 1, 3}}, seen), "blocks 0, 1 seen; 3 is new")
	assert.Equal(t, 512, p.Expected(Request{InputTokens: 2000, HashIDs: []int64{0, 4, 1, 3}}, seen), "reuse stops at the first new block (4)")
	assert.Equal(t, 0, p.Expected(Request{InputTokens: 300, HashIDs: []int64{0}}, seen), "a partial block is not counted")
	assert.Equal(t, 0, p.Expected(Request{InputTokens: 600, HashIDs: []int64{2}}, seen), "block 2 was partial in request 1 (1100 = 2×512 + 76), never sent whole")
}

func TestWordsAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range words {
		assert.False(t, seen[w], "word %q twice", w)
		seen[w] = true
	}
	assert.GreaterOrEqual(t, len(words), 128, "enough words that blocks differ")
}
