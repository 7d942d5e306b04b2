package traces

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Azure reads the Azure LLM inference trace CSV (see the package comment):
// a header naming TIMESTAMP, ContextTokens and GeneratedTokens (in any
// order, any letter case, other columns ignored), then one request a row.
// TIMESTAMP is a date-time as the published traces write it
// ("2023-11-16 18:15:46.6805900", UTC) or RFC 3339; a request's offset is
// its timestamp minus the first row's, and rows must not go back in time.
type Azure struct {
	file    string
	r       *csv.Reader
	started bool
	col     [3]int // TIMESTAMP, ContextTokens, GeneratedTokens
	first   time.Time
	last    time.Time
	line    int
}

// azureColumns are the columns Azure reads, in the order of Azure.col.
var azureColumns = [3]string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"}

// NewAzure returns a reader of the Azure trace CSV r, whose errors name
// file.
func NewAzure(r io.Reader, file string) *Azure {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1 // a short row is named below, with its line
	return &Azure{file: file, r: cr}
}

// Next returns the next request, io.EOF at the end, or an *Error.
func (a *Azure) Next() (Request, error) {
	if !a.started {
		if err := a.header(); err != nil {
			return Request{}, err
		}
	}
	rec, err := a.r.Read()
	if err != nil {
		return Request{}, a.readErr(err)
	}
	a.line, _ = a.r.FieldPos(0)
	for i, c := range a.col {
		if c >= len(rec) {
			return Request{}, a.fail(azureColumns[i], fmt.Sprintf("missing: the row has %d fields", len(rec)))
		}
	}
	ts, err := parseAzureTime(strings.TrimSpace(rec[a.col[0]]))
	if err != nil {
		return Request{}, a.fail(azureColumns[0], err.Error())
	}
	if a.first.IsZero() {
		a.first, a.last = ts, ts
	}
	if ts.Before(a.last) {
		return Request{}, a.fail(azureColumns[0], fmt.Sprintf("%s is before the previous row's %s: a trace is in arrival order", rec[a.col[0]], a.last.Format(azureLayout)))
	}
	a.last = ts
	var n [2]int
	for k := range n {
		f := azureColumns[k+1]
		v, err := strconv.Atoi(strings.TrimSpace(rec[a.col[k+1]]))
		if err != nil || v < 1 {
			return Request{}, a.fail(f, fmt.Sprintf("%q: want an integer >= 1 (tokens)", rec[a.col[k+1]]))
		}
		n[k] = v
	}
	return Request{Line: a.line, At: ts.Sub(a.first), InputTokens: n[0], OutputTokens: n[1]}, nil
}

func (a *Azure) header() error {
	rec, err := a.r.Read()
	if errors.Is(err, io.EOF) {
		a.line = 1
		return a.fail("", "empty file: want a header TIMESTAMP,ContextTokens,GeneratedTokens")
	}
	if err != nil {
		return a.readErr(err)
	}
	a.line = 1
	for i, name := range azureColumns {
		a.col[i] = -1
		for j, h := range rec {
			if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), name) {
				a.col[i] = j
				break
			}
		}
		if a.col[i] < 0 {
			return a.fail(name, fmt.Sprintf("header %q has no %s column (want TIMESTAMP,ContextTokens,GeneratedTokens)", strings.Join(rec, ","), name))
		}
	}
	a.started = true
	return nil
}

func (a *Azure) readErr(err error) error {
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: a.file, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return fmt.Errorf("traces: %s: after line %d: %w", a.file, a.line, err)
}

func (a *Azure) fail(field, msg string) *Error {
	return &Error{File: a.file, Line: a.line, Field: field, Msg: msg}
}

// azureLayout is the published traces' TIMESTAMP (seven fractional
// digits, no zone: UTC).
const azureLayout = "2006-01-02 15:04:05.9999999"

func parseAzureTime(s string) (time.Time, error) {
	if t, err := time.Parse(azureLayout, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q: want a date-time like 2023-11-16 18:15:46.6805900 (UTC) or RFC 3339", s)
}
