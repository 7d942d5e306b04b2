package traces

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Request is one line of a trace.
type Request struct {
	// Line is the request's 1-based line in the trace file.
	Line int
	// At is the request's arrival offset from the trace's first request
	// (Mooncake's timestamp; Azure's TIMESTAMP minus the first row's).
	At time.Duration
	// InputTokens is the prompt length in tokens (input_length,
	// ContextTokens); OutputTokens the answer length (output_length,
	// GeneratedTokens), sent as max_tokens.
	InputTokens, OutputTokens int
	// HashIDs are the ids of the prompt's blocks of BlockSize tokens, in
	// order (Mooncake's hash_ids); nil for a trace without them.
	HashIDs []int64
}

// Reader yields a trace's requests in file order. Next returns io.EOF
// after the last one, and an *Error for a malformed line (the reader
// stops there: the rest of the file is not read).
type Reader interface {
	Next() (Request, error)
}

// Error is a malformed trace line: the file, the 1-based line, the field
// (empty when the line as a whole is wrong) and what is wrong.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// MaxLineBytes bounds one trace line: a longer one is an error rather than
// an unbounded buffer (a Mooncake line of a 1M-token prompt with 512-token
// blocks holds about 2,000 ids, some 16 KiB).
const MaxLineBytes = 1 << 20

// Formats are the trace formats Open reads, by the --dataset-name that
// names them.
var Formats = []string{"mooncake", "azure"}

// Open returns the reader of format ("mooncake" or "azure") over r, whose
// errors name file.
func Open(format string, r io.Reader, file string) (Reader, error) {
	switch format {
	case "mooncake":
		return NewMooncake(r, file), nil
	case "azure":
		return NewAzure(r, file), nil
	}
	return nil, fmt.Errorf("traces: format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// Count reads r to its end and returns how many requests it holds, or the
// first malformed line's error.
func Count(r Reader) (int, error) {
	n := 0
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}
