package stream

import (
	"bytes"
	"io"
	"time"
)

// sseEvent is one dispatched Server-Sent Event, reduced to the fields
// benchserve uses. Slices alias the block being parsed or the parser's
// buffer and are valid until the next call to next.
type sseEvent struct {
	data    []byte // data lines joined by "\n"
	hasData bool
	errMsg  []byte // non-standard "error:" field lines joined by "\n"
	hasErr  bool
	typ     []byte // "event:" field (last one)
}

// sseParser interprets the fields of the blocks EventStreamReader returns,
// following the WHATWG event-stream interpretation rules: lines end in
// CRLF, LF or CR; a blank line dispatches; a leading ':' is a comment; the
// field name runs to the first ':' and one leading space is dropped from
// the value; several data lines are joined by "\n"; id and retry are
// ignored. One block normally holds one event, but blank lines inside a
// block (separator forms the splitter does not know, such as LF CR) also
// dispatch.
type sseParser struct {
	dataBuf, errBuf []byte
}

var (
	fieldData  = []byte("data")
	fieldEvent = []byte("event")
	fieldError = []byte("error")
	doneMarker = []byte("[DONE]")
)

// next parses the event starting at block[pos:] and returns it with the
// position after it. ok is false when no further event is in the block.
func (p *sseParser) next(block []byte, pos int) (ev sseEvent, nextPos int, ok bool) {
	joinedData, joinedErr := false, false
	for pos < len(block) {
		rest := block[pos:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			i = len(rest)
		}
		var line []byte
		if j := bytes.IndexByte(rest[:i], '\r'); j >= 0 {
			line = rest[:j]
			adv := j + 1
			if adv < len(rest) && rest[adv] == '\n' {
				adv++
			}
			pos += adv
		} else {
			line = rest[:i]
			pos += min(i+1, len(rest))
		}
		if len(line) == 0 {
			if ev.hasData || ev.hasErr {
				return ev, pos, true
			}
			ev.typ = nil
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if c := bytes.IndexByte(line, ':'); c >= 0 {
			name, value = line[:c], line[c+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch {
		case bytes.Equal(name, fieldData):
			ev.data, joinedData = joinLine(&p.dataBuf, ev.data, ev.hasData, joinedData, value)
			ev.hasData = true
		case bytes.Equal(name, fieldError):
			ev.errMsg, joinedErr = joinLine(&p.errBuf, ev.errMsg, ev.hasErr, joinedErr, value)
			ev.hasErr = true
		case bytes.Equal(name, fieldEvent):
			ev.typ = value
		}
		// id, retry and unknown fields are ignored.
	}
	if ev.hasData || ev.hasErr {
		return ev, pos, true
	}
	return ev, pos, false
}

// joinLine appends one more line to a field value. The first line is kept
// as an alias of the block (no copy); from the second on the lines are
// joined by "\n" in buf.
func joinLine(buf *[]byte, cur []byte, has, joined bool, value []byte) ([]byte, bool) {
	if !has {
		return value, false
	}
	if !joined {
		*buf = append((*buf)[:0], cur...)
	}
	*buf = append(*buf, '\n')
	*buf = append(*buf, value...)
	return *buf, true
}

// isDone reports whether data is the [DONE] sentinel (surrounding spaces
// tolerated).
func isDone(data []byte) bool {
	return bytes.Equal(bytes.TrimSpace(data), doneMarker)
}

// trackReader remembers the first hard (non-EOF) read error of the body.
// bufio.Scanner hands out the buffered fragment as a final token when a
// read fails, and EventStreamReader turns context.Canceled into io.EOF;
// the tracker lets the client tell a real end of stream from a broken one.
// When a read returns data together with an error, the error is held back
// until the next read, so that every block returned after err is set is a
// fragment.
type trackReader struct {
	r       io.Reader
	err     error // first non-EOF error
	eof     bool  // io.EOF seen
	pending error
	// at is when the last Read that returned bytes returned: the arrival
	// time of every event completed by those bytes (see state.handle).
	at time.Time
}

func (t *trackReader) Read(p []byte) (int, error) {
	if t.pending != nil {
		err := t.pending
		t.pending = nil
		t.note(err)
		return 0, err
	}
	n, err := t.r.Read(p)
	if n > 0 {
		t.at = time.Now()
	}
	if err != nil && n > 0 {
		t.pending = err
		return n, nil
	}
	if err != nil {
		t.note(err)
	}
	return n, err
}

func (t *trackReader) note(err error) {
	if err == io.EOF {
		t.eof = true
	} else if t.err == nil {
		t.err = err
	}
}
