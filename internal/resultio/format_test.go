package resultio

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// The snapshots were checked byte for byte against the reference's
// format_workload_* / format_* run under CPython 3.11 with tabulate on the
// same payload (loaded from FormatJSON's output).
func TestWorkloadFormatSnapshots(t *testing.T) {
	p := fixedPayload()
	for _, f := range Formats {
		t.Run(f, func(t *testing.T) {
			out, err := Format(p, f)
			require.NoError(t, err, "Format(%q) of the fixed payload", f)
			snaps.MatchSnapshot(t, visibleCR(out))
		})
	}
}

// visibleCR spells carriage returns as the two characters \r, so the CSV
// line ends survive in the snapshot file (which is read line by line).
func visibleCR(b []byte) string { return strings.ReplaceAll(string(b), "\r", `\r`) }

func TestSweepFormatSnapshots(t *testing.T) {
	res := fixedSweep()
	for _, f := range Formats {
		t.Run(f, func(t *testing.T) {
			out, err := FormatSweep(res, f)
			require.NoError(t, err, "FormatSweep(%q) of the fixed results", f)
			snaps.MatchSnapshot(t, visibleCR(out))
		})
	}
}

func TestFormatUnknownListsValidFormats(t *testing.T) {
	_, err := Format(fixedPayload(), "yaml")
	require.Error(t, err, "yaml is not a format")
	assert.True(t, errors.Is(err, ErrUnknownFormat), "error must wrap ErrUnknownFormat: %v", err)
	assert.Contains(t, err.Error(), "json, csv, sql, table", "error must list the valid formats")
	_, err = FormatSweep(nil, "sqlite")
	assert.ErrorIs(t, err, ErrUnknownFormat, "sqlite is not a text format")
}

func TestFormatJSONReadsBackAsPayload(t *testing.T) {
	p := fixedPayload()
	out, err := FormatJSON(p)
	require.NoError(t, err, "FormatJSON")
	var back results.Payload
	require.NoError(t, json.Unmarshal(out, &back), "FormatJSON output must decode into Payload")
	assert.Equal(t, p.Summary, back.Summary, "summary survives the round trip")
	assert.Equal(t, p.Results[1].ToolCalls, back.Results[1].ToolCalls, "tool calls survive the round trip")
	assert.Nil(t, back.Results[1].Metrics.CacheHits, "null cache counters stay null")
	assert.Equal(t, "connection refused", back.Results[2].Error, "the error addition is written")
	assert.False(t, bytes.HasSuffix(out, []byte("\n")), "no trailing newline, like json.dumps")
	assert.Contains(t, string(out), `"content_preview": "It's \"caf\u00e9\", friend\nsee you"`, "non-ASCII escaped as json.dumps does")
	assert.Contains(t, string(out), `"timeout_ms": 2000,`, "policy timeout is the reference's int")
	assert.Contains(t, string(out), `"ttft_ms": 80.0,`, "floats keep their .0 as Python floats do")
}

func TestFormatJSONNaNBecomesNull(t *testing.T) {
	p := fixedPayload()
	p.Results[0].Metrics.TTFTms = math.NaN()
	p.Results[0].Metrics.GenTPS = math.Inf(1)
	out, err := FormatJSON(p)
	require.NoError(t, err, "NaN must not make FormatJSON fail")
	assert.Contains(t, string(out), `"ttft_ms": null,`, "NaN is written as null")
	assert.Contains(t, string(out), `"gen_tps": null,`, "Inf is written as null")
	assert.True(t, json.Valid(out), "output stays valid JSON")
}

func TestSQLLiteralEscaping(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{nil, "NULL"},
		{true, "1"},
		{false, "0"},
		{math.NaN(), "NULL"},
		{math.Inf(1), "NULL"},
		{math.Inf(-1), "NULL"},
		{3.0, "3.0"},
		{12.5, "12.5"},
		{1e-5, "1e-05"},
		{42, "42"},
		{int64(-7), "-7"},
		{"plain", "'plain'"},
		{"it's", "'it''s'"},
		{"''", "''''''"},
		{"", "''"},
		{"line\nbreak", "'line\nbreak'"},
		{(*bool)(nil), "NULL"},
		{ptr(true), "1"},
		{(*string)(nil), "NULL"},
		{ptr("o'k"), "'o''k'"},
	}
	for _, c := range cases {
		assert.Equalf(t, c.want, SQLLiteral(c.in), "SQLLiteral(%#v)", c.in)
	}
}

func TestCSVCellsAndQuoting(t *testing.T) {
	out := string(writePyCSV([]string{"a", "b", "c", "d", "e", "f"}, [][]any{
		{nil, true, false, 3.0, math.NaN(), " lead"},
		{`say "hi"`, "x,y", "multi\nline", int64(5), math.Inf(1), ""},
	}))
	assert.Equal(t, "a,b,c,d,e,f\r\n"+
		",True,False,3.0,nan, lead\r\n"+
		`"say ""hi""","x,y","multi`+"\n"+`line",5,inf,`+"\r\n", out,
		"None empty, Python bool/float repr, minimal quoting, embedded newline kept, CRLF line ends")

	r := csv.NewReader(strings.NewReader(string(FormatCSV(fixedPayload()))))
	recs, err := r.ReadAll()
	require.NoError(t, err, "encoding/csv must read FormatCSV output")
	require.Len(t, recs, 4, "header and three rows")
	assert.Equal(t, WorkloadResultColumns, recs[0], "header is WorkloadResultColumns")
	row := map[string]string{}
	for i, c := range recs[0] {
		row[c] = recs[2][i]
	}
	assert.Equal(t, "", row["cache_hits"], "null cache counters are empty cells")
	assert.Equal(t, "True", row["quality_ok"], "bools as Python writes them")
	assert.Equal(t, "{}", row["request_extra_body"], "empty extra_body is {}")
	assert.Equal(t, "", row["request_enable_thinking"], "unset enable_thinking is empty")
	assert.Equal(t, "400.0", row["e2e_latency_ms"], "floats in Python repr")
	row0 := map[string]string{}
	for i, c := range recs[0] {
		row0[c] = recs[1][i]
	}
	assert.Equal(t, `{"temperature": 0.2, "top_p": 1}`, row0["request_extra_body"], "sorted keys and Python separators")
	assert.Equal(t, "It's \"café\", friend\nsee you", row0["content_preview"], "quoted preview reads back unchanged")
}

func TestRecordRowColumnsAndValues(t *testing.T) {
	recs := fixedRecords()
	row := RecordRow(recs[2])
	require.Len(t, row, len(WorkloadResultColumns), "one cell per column")
	m := RecordRowMap(recs[2])
	assert.Equal(t, `["finish_reason None not in ['stop']", "request error: connection refused"]`, m["quality_issues"],
		"quality_issues is json.dumps(list)")
	assert.Nil(t, m["finish_reason"], "missing finish_reason is None")
	assert.Equal(t, int64(2000), m["policy_timeout_ms"], "integral policy timeout is an int")
	assert.Equal(t, false, m["within_policy_timeout"], "policy outcome")
	assert.Equal(t, "smoke,chat", m["tags"], "tags joined by commas")
	assert.Equal(t, int64(0), m["cache_hits"], "present counters are ints")
	m1 := RecordRowMap(recs[1])
	assert.Nil(t, m1["cache_hits"], "absent counters are None")
	assert.Nil(t, m1["policy_timeout_ms"], "no policy timeout is None")
	for i, c := range WorkloadResultColumns {
		assert.Equalf(t, row[i], m[c], "RecordRowMap[%s] matches RecordRow position", c)
	}
}

func TestTableAlignment(t *testing.T) {
	got := tabulateSimple([]string{"name", "n", "x", "ok"}, [][]any{
		{"a", 1, 12.5, true},
		{"bbbbbbbb", 100, 3.0, nil},
		{nil, nil, nil, false},
	})
	// Verified with tabulate(rows, headers, tablefmt="simple").
	want := "name        n     x  ok\n" +
		"--------  ---  ----  -----\n" +
		"a           1  12.5  True\n" +
		"bbbbbbbb  100   3    \n" +
		"                     False"
	assert.Equal(t, strings.ReplaceAll(want, "    \n", "\n"), got, "decimal alignment, header padding and right-strip as tabulate")
	assert.Equal(t, "a    b\n---  ---", tabulateSimple([]string{"a", "b"}, nil), "no rows: header and rule only")
}

func TestFormatsOfNilPayloadAreEmptyRuns(t *testing.T) {
	assert.Equal(t, strings.Join(WorkloadResultColumns, ",")+"\r\n", string(FormatCSV(nil)), "csv of nil payload is the header")
	assert.Equal(t, "CREATE TABLE IF NOT EXISTS bench_serve_workload ("+WorkloadSQLSchema+");", string(FormatSQL(nil)), "sql of nil payload is the CREATE only")
	assert.Equal(t, 2, strings.Count(string(FormatTable(nil)), "\n")+1, "table of nil payload is header and rule")
}
