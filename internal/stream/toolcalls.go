package stream

import (
	"cmp"
	"slices"

	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/results"
)

// ToolCallAccumulator merges streamed tool-call deltas into complete calls.
// It ports the reference's accumulate_tool_calls / finalize_tool_calls:
// deltas are merged by their "index"; the first delta of an index creates
// the call (type defaults to "function"); a non-empty id or type
// overwrites; non-empty name and arguments fragments are appended (an empty
// name never changes the name, so servers that repeat "name": "" on later
// deltas of parallel calls are handled). A delta whose non-empty id differs
// from the id of the call already at its index starts a new call (index =
// highest so far + 1), for servers that send every parallel call with
// index 0; the reference would glue them into one.
//
// Deltas without an index (absent or null, as some servers send): a
// non-empty id not seen before starts a new call (index = highest so far + 1,
// or 0 for the first call) unless the call that received the previous delta
// has no id yet, which then takes it; an id already seen continues that
// call; no id continues the call that received the previous delta, or
// starts call 0 when there is none.
//
// The zero value is ready to use. Not safe for concurrent use.
type ToolCallAccumulator struct {
	calls []accCall
	last  int // position in calls of the call the previous delta went to
}

type accCall struct {
	index     int
	id, typ   string
	name, arg []byte
}

// Add merges one chunk's tool-call deltas, in order.
func (a *ToolCallAccumulator) Add(deltas []openai.ToolCallDelta) {
	for i := range deltas {
		d := &deltas[i]
		pos := -1
		if d.Index != nil {
			pos = a.find(func(c *accCall) bool { return c.index == *d.Index })
			if pos >= 0 && d.ID != "" && a.calls[pos].id != "" && a.calls[pos].id != d.ID {
				// A new id on a used index: a server numbering every call
				// 0. Merging would glue two calls' names and arguments.
				pos = a.find(func(c *accCall) bool { return c.id == d.ID })
				if pos < 0 {
					pos = a.add(a.maxIndex() + 1)
				}
			} else if pos < 0 {
				pos = a.add(*d.Index)
			}
		} else {
			switch {
			case len(a.calls) == 0:
				pos = a.add(0)
			case d.ID != "":
				pos = a.find(func(c *accCall) bool { return c.id == d.ID })
				if pos < 0 && a.calls[a.last].id == "" {
					pos = a.last // the call started without an id gets this one
				}
				if pos < 0 {
					pos = a.add(a.maxIndex() + 1)
				}
			default:
				pos = a.last
			}
		}
		a.last = pos
		c := &a.calls[pos]
		if d.ID != "" {
			c.id = d.ID
		}
		if d.Type != "" {
			c.typ = d.Type
		}
		if f := d.Function; f != nil {
			c.name = append(c.name, f.Name...)
			c.arg = append(c.arg, f.Arguments...)
		}
	}
}

func (a *ToolCallAccumulator) find(match func(*accCall) bool) int {
	for i := range a.calls {
		if match(&a.calls[i]) {
			return i
		}
	}
	return -1
}

func (a *ToolCallAccumulator) add(index int) int {
	a.calls = append(a.calls, accCall{index: index, typ: "function"})
	return len(a.calls) - 1
}

func (a *ToolCallAccumulator) maxIndex() int {
	m := a.calls[0].index
	for _, c := range a.calls[1:] {
		m = max(m, c.index)
	}
	return m
}

// Calls returns the merged calls sorted by index (stream order), nil when
// none arrived. The result is a fresh slice; Add may continue afterwards.
func (a *ToolCallAccumulator) Calls() []results.ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	sorted := slices.Clone(a.calls)
	slices.SortStableFunc(sorted, func(x, y accCall) int { return cmp.Compare(x.index, y.index) })
	out := make([]results.ToolCall, len(sorted))
	for i, c := range sorted {
		out[i] = results.ToolCall{ID: c.id, Type: c.typ, Function: results.FunctionCall{Name: string(c.name), Arguments: string(c.arg)}}
	}
	return out
}

// Len reports how many distinct calls have been seen.
func (a *ToolCallAccumulator) Len() int { return len(a.calls) }
