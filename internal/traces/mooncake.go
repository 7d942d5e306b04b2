package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// Mooncake reads a Mooncake-format JSONL trace (see the package comment)
// one line at a time. Blank lines are skipped; fields beyond the four are
// ignored (traces carry extra ones). Each line must have a timestamp >= 0,
// not before the previous line's, input_length >= 1 and output_length >= 1;
// hash_ids is optional.
type Mooncake struct {
	file string
	sc   *bufio.Scanner
	line int
	last float64 // the previous line's timestamp, ms
}

// NewMooncake returns a reader of the Mooncake JSONL trace r, whose errors
// name file.
func NewMooncake(r io.Reader, file string) *Mooncake {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	return &Mooncake{file: file, sc: sc}
}

type mooncakeLine struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int     `json:"input_length"`
	OutputLength *int     `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
}

// Next returns the next request, io.EOF at the end, or an *Error.
func (m *Mooncake) Next() (Request, error) {
	for m.sc.Scan() {
		m.line++
		b := bytes.TrimSpace(m.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		return m.parse(b)
	}
	if err := m.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			m.line++ // the line being read
			return Request{}, m.fail("", fmt.Sprintf("line longer than %d bytes", MaxLineBytes))
		}
		return Request{}, fmt.Errorf("traces: %s: after line %d: %w", m.file, m.line, err)
	}
	return Request{}, io.EOF
}

func (m *Mooncake) parse(b []byte) (Request, error) {
	var l mooncakeLine
	if err := json.Unmarshal(b, &l); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Request{}, m.fail(te.Field, fmt.Sprintf("want %s, got a JSON %s", want(te.Field), te.Value))
		}
		return Request{}, m.fail("", "not a JSON object: "+err.Error())
	}
	switch {
	case l.Timestamp == nil:
		return Request{}, m.fail("timestamp", "missing (milliseconds since the first request)")
	case *l.Timestamp < 0 || math.IsInf(*l.Timestamp, 0):
		return Request{}, m.fail("timestamp", fmt.Sprintf("%v: want milliseconds >= 0", *l.Timestamp))
	case *l.Timestamp < m.last:
		return Request{}, m.fail("timestamp", fmt.Sprintf("%v is before the previous line's %v: a trace is in arrival order", *l.Timestamp, m.last))
	case l.InputLength == nil:
		return Request{}, m.fail("input_length", "missing (prompt tokens)")
	case *l.InputLength < 1:
		return Request{}, m.fail("input_length", fmt.Sprintf("%d: want at least 1 token", *l.InputLength))
	case l.OutputLength == nil:
		return Request{}, m.fail("output_length", "missing (answer tokens)")
	case *l.OutputLength < 1:
		return Request{}, m.fail("output_length", fmt.Sprintf("%d: want at least 1 token", *l.OutputLength))
	}
	for i, id := range l.HashIDs {
		if id < 0 {
			return Request{}, m.fail(fmt.Sprintf("hash_ids[%d]", i), fmt.Sprintf("%d: want an id >= 0", id))
		}
	}
	m.last = *l.Timestamp
	return Request{Line: m.line, At: time.Duration(*l.Timestamp * float64(time.Millisecond)),
		InputTokens: *l.InputLength, OutputTokens: *l.OutputLength, HashIDs: l.HashIDs}, nil
}

func want(field string) string {
	switch field {
	case "timestamp":
		return "a number of milliseconds"
	case "hash_ids":
		return "an array of integer block ids"
	}
	if len(field) > len("hash_ids") && field[:len("hash_ids")] == "hash_ids" {
		return "an integer block id"
	}
	return "an integer"
}

func (m *Mooncake) fail(field, msg string) *Error {
	return &Error{File: m.file, Line: m.line, Field: field, Msg: msg}
}
