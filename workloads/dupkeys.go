package workloads

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// duplicateKey is a key written twice in one JSON object, at path (e.g.
// "cases[1].max_tokens"; "" for the top level's own keys).
type duplicateKey struct {
	path string
}

// duplicateKeys lists the keys repeated within one object anywhere in
// data, which must be valid JSON. encoding/json keeps the last value of a
// repeated key silently; a workload must not lose the first one unseen.
func duplicateKeys(data []byte) []duplicateKey {
	type frame struct {
		object bool
		keys   map[string]bool
		key    string // object: the key whose value comes next
		want   bool   // object: a key (or the closing brace) comes next
		index  int    // array: the index of the next element
		path   string
	}
	var (
		stack []*frame
		dups  []duplicateKey
	)
	child := func(f *frame) string {
		if f.object {
			if f.path == "" {
				return f.key
			}
			return f.path + "." + f.key
		}
		return f.path + "[" + strconv.Itoa(f.index) + "]"
	}
	// valueDone moves the enclosing frame past the value just read.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.object {
			f.want = true
		} else {
			f.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return dups // io.EOF, or invalid JSON the caller reports itself
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.want {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				valueDone()
				continue
			}
			k, _ := tok.(string)
			if top.keys[k] {
				p := k
				if top.path != "" {
					p = top.path + "." + k
				}
				dups = append(dups, duplicateKey{path: p})
			}
			top.keys[k] = true
			top.key, top.want = k, false
			continue
		}
		switch d := tok.(type) {
		case json.Delim:
			switch d {
			case '{', '[':
				path := ""
				if top != nil {
					path = child(top)
				}
				stack = append(stack, &frame{object: d == '{', want: d == '{', keys: map[string]bool{}, path: path})
			case ']': // '}' always comes where a key could, handled above
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				valueDone()
			}
		default:
			valueDone()
		}
	}
}

// reportDuplicateKeys adds a problem per repeated key, naming the case
// (by position: ids may be the repeated key) and the field.
func (p *parser) reportDuplicateKeys(data []byte) {
	for _, d := range duplicateKeys(data) {
		where, field := at{}, d.path
		if rest, ok := strings.CutPrefix(d.path, "cases["); ok {
			if i := strings.IndexByte(rest, ']'); i > 0 {
				if n, err := strconv.Atoi(rest[:i]); err == nil {
					where = at{index: n + 1}
					field = strings.TrimPrefix(rest[i+1:], ".")
				}
			}
		}
		p.add(where, field, "key written twice in one object; JSON keeps only the last value, so remove one")
	}
}
