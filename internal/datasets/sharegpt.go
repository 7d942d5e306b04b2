package datasets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/benchserve/benchserve/internal/tokens"
	"github.com/benchserve/benchserve/results"
)

// The conversation files' parameters. vLLM's --sharegpt-output-len is
// the one vLLM has; the length filters are benchserve's (vLLM filters
// ShareGPT at fixed bounds).
const (
	ParamShareGPTOutputLen = "sharegpt_output_len"
	ParamMinInputLen       = "min_input_len"
	ParamMaxInputLen       = "max_input_len"
)

// conversations is the "sharegpt" and "jsonl" generator: requests read
// from a conversation file, streamed.
type conversations struct {
	spec                  Spec
	counter               tokens.Counter
	outputLen, minIn, max int
	jsonl                 bool
}

func newConversations(jsonl bool) Factory {
	return func(o Options) (Generator, error) {
		if err := o.Check(ParamShareGPTOutputLen, ParamMinInputLen, ParamMaxInputLen); err != nil {
			return nil, err
		}
		if o.Path == "" {
			return nil, fmt.Errorf("datasets: %s: dataset_path: want the file to read (--dataset-path)", o.Name)
		}
		if _, err := os.Stat(o.Path); err != nil {
			return nil, fmt.Errorf("datasets: %s: %w", o.Name, err)
		}
		var vals [3]int
		for i, key := range []string{ParamShareGPTOutputLen, ParamMinInputLen, ParamMaxInputLen} {
			v, err := o.Int(key, 0)
			if err != nil {
				return nil, err
			}
			if v < 0 {
				return nil, fmt.Errorf("datasets: %s: %s %d: want >= 0 (0: none)", o.Name, key, v)
			}
			vals[i] = v
		}
		return &conversations{
			spec: Spec{Name: o.Name, Path: o.Path, Seed: o.Seed, NumPrompts: o.NumPrompts, Counting: o.Counter.Method(),
				Params: map[string]any{ParamShareGPTOutputLen: vals[0], ParamMinInputLen: vals[1], ParamMaxInputLen: vals[2]}},
			counter: o.Counter, outputLen: vals[0], minIn: vals[1], max: vals[2], jsonl: jsonl,
		}, nil
	}
}

func (g *conversations) Spec() Spec { return g.spec }

// Requests streams the file: for ShareGPT, one request per human turn of
// every conversation (every turn, not only the first: turn k sends the
// conversation's history up to its k-th human message, the file's own
// answers in between, so a conversation's requests share their prefix);
// for JSONL, one request per line (its messages up to the last user
// message; an assistant message after it is the reference answer). The
// output length is sharegpt_output_len when set, else the token count of
// the file's answer to that turn (0, the workload default, when there is
// none). A request whose input is outside min_input_len..max_input_len is
// skipped. Errors name the file, the line and the field.
func (g *conversations) Requests() iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		f, err := os.Open(g.spec.Path)
		if err != nil {
			yield(Request{}, fmt.Errorf("datasets: %s: %w", g.spec.Name, err))
			return
		}
		defer f.Close()
		sent := 0
		emit := func(convs iter.Seq2[conversation, error]) {
			for c, err := range convs {
				if err != nil {
					yield(Request{}, err)
					return
				}
				for r, err := range g.turns(c) {
					if err != nil {
						yield(Request{}, err)
						return
					}
					if !yield(r, nil) {
						return
					}
					if sent++; g.spec.NumPrompts > 0 && sent == g.spec.NumPrompts {
						return
					}
				}
			}
		}
		if g.jsonl {
			emit(readJSONL(g.spec.Path, f))
		} else {
			emit(readShareGPT(g.spec.Path, f))
		}
	}
}

// conversation is one record of a conversation file, its messages in
// the OpenAI shape.
type conversation struct {
	id       string
	where    string // "record 3", "line 7": for an error's message
	messages []results.Message
	jsonl    bool
}

// turns yields c's requests (see Requests).
func (g *conversations) turns(c conversation) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		ctx := context.Background()
		prefix := 0 // tokens of the history before the current turn
		counts := make([]int, len(c.messages))
		for i, m := range c.messages {
			n, err := g.counter.Count(ctx, m["content"].(string))
			if err != nil {
				yield(Request{}, fmt.Errorf("datasets: %s: %s: count tokens: %w", g.spec.Path, c.where, err))
				return
			}
			counts[i] = n
		}
		turn := 0
		for i, m := range c.messages {
			last := i == len(c.messages)-1
			isUser := m["role"] == "user"
			if !isUser || (c.jsonl && !lastUser(c.messages, i)) {
				continue
			}
			in := 0
			for _, n := range counts[:i+1] {
				in += n
			}
			out := g.outputLen
			if out == 0 && !last && c.messages[i+1]["role"] == "assistant" {
				out = max(counts[i+1], 1)
			}
			req := Request{
				ID: fmt.Sprintf("%s-%s.%d", g.spec.Name, c.id, turn), Messages: c.messages[: i+1 : i+1],
				InputTokens: in, OutputTokens: out, Group: g.spec.Name + "-" + c.id, Turn: turn, PrefixTokens: prefix,
			}
			prefix = in
			if i+1 < len(c.messages) {
				prefix += counts[i+1]
			}
			turn++
			if (g.minIn > 0 && in < g.minIn) || (g.max > 0 && in > g.max) {
				continue // outside the length filter
			}
			if !yield(req, nil) {
				return
			}
		}
	}
}

// lastUser reports whether message i is the last user message.
func lastUser(msgs []results.Message, i int) bool {
	for _, m := range msgs[i+1:] {
		if m["role"] == "user" {
			return false
		}
	}
	return true
}

// shareGPTRoles maps ShareGPT's "from" values to OpenAI roles.
var shareGPTRoles = map[string]string{
	"human": "user", "user": "user", "gpt": "assistant", "chatgpt": "assistant", "assistant": "assistant",
	"bard": "assistant", "bing": "assistant", "model": "assistant", "system": "system",
}

// readShareGPT streams the records of a ShareGPT JSON file (a list of
// {"id", "conversations": [{"from", "value"}]}), one at a time.
func readShareGPT(path string, r io.ReadSeeker) iter.Seq2[conversation, error] {
	return func(yield func(conversation, error) bool) {
		dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
		lineAt := func(off int64) int { return lineOf(r, off, true) }
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			yield(conversation{}, fmt.Errorf("datasets: %s:1: want a JSON list of conversations (ShareGPT)", path))
			return
		}
		for i := 0; dec.More(); i++ {
			off := dec.InputOffset()
			var rec struct {
				ID            any `json:"id"`
				Conversations []struct {
					From  *string `json:"from"`
					Value *string `json:"value"`
				} `json:"conversations"`
			}
			if err := dec.Decode(&rec); err != nil {
				yield(conversation{}, fmt.Errorf("datasets: %s:%d: record %d: %v", path, lineAt(dec.InputOffset()), i, err))
				return
			}
			c := conversation{id: fmt.Sprint(i), where: fmt.Sprintf("record %d", i)}
			if s, ok := rec.ID.(string); ok && s != "" {
				c.id = s
			}
			for k, t := range rec.Conversations {
				field := fmt.Sprintf("conversations[%d]", k)
				if t.From == nil || shareGPTRoles[*t.From] == "" {
					got := "nothing"
					if t.From != nil {
						got = fmt.Sprintf("%q", *t.From)
					}
					yield(conversation{}, fmt.Errorf("datasets: %s:%d: record %d (id %s): %s.from: want human, gpt or system, got %s", path, lineAt(off), i, c.id, field, got))
					return
				}
				if t.Value == nil {
					yield(conversation{}, fmt.Errorf("datasets: %s:%d: record %d (id %s): %s.value: missing; want the turn's text", path, lineAt(off), i, c.id, field))
					return
				}
				c.messages = append(c.messages, results.Message{"role": shareGPTRoles[*t.From], "content": *t.Value})
			}
			if !yield(c, nil) {
				return
			}
		}
	}
}

// readJSONL streams an OpenAI-messages JSONL file: one {"messages": [...]}
// object per line (blank lines skipped).
func readJSONL(path string, r io.Reader) iter.Seq2[conversation, error] {
	return func(yield func(conversation, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for line := 1; sc.Scan(); line++ {
			text := bytes.TrimSpace(sc.Bytes())
			if len(text) == 0 {
				continue
			}
			var rec struct {
				Messages []map[string]any `json:"messages"`
			}
			if err := json.Unmarshal(text, &rec); err != nil {
				yield(conversation{}, fmt.Errorf("datasets: %s:%d: want a JSON object with \"messages\": %v", path, line, err))
				return
			}
			if len(rec.Messages) == 0 {
				yield(conversation{}, fmt.Errorf("datasets: %s:%d: messages: missing or empty", path, line))
				return
			}
			c := conversation{id: fmt.Sprint(line), where: fmt.Sprintf("line %d", line), jsonl: true}
			users := 0
			for k, m := range rec.Messages {
				role, _ := m["role"].(string)
				content, ok := m["content"].(string)
				switch {
				case role != "user" && role != "assistant" && role != "system":
					yield(conversation{}, fmt.Errorf("datasets: %s:%d: messages[%d].role: want user, assistant or system, got %v", path, line, k, m["role"]))
					return
				case !ok:
					yield(conversation{}, fmt.Errorf("datasets: %s:%d: messages[%d].content: want a string, got %v", path, line, k, m["content"]))
					return
				}
				if role == "user" {
					users++
				}
				c.messages = append(c.messages, results.Message{"role": role, "content": content})
			}
			if users == 0 {
				yield(conversation{}, fmt.Errorf("datasets: %s:%d: messages: no user message to send", path, line))
				return
			}
			if !yield(c, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(conversation{}, fmt.Errorf("datasets: %s: %w", path, err))
		}
	}
}

// lineOf returns the 1-based line of byte offset off in r (read again
// from the start, then left where it was; only for an error's message or
// a record's line); with toValue, the line of the first byte at or after
// off that is not a space or a comma.
func lineOf(r io.ReadSeeker, off int64, toValue bool) int {
	cur, err := r.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0
	}
	defer r.Seek(cur, io.SeekStart) //nolint:errcheck // restoring the position the decoder reads from
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0
	}
	line, buf := 1, make([]byte, 1<<16)
	for read := int64(0); read < off; {
		n, err := r.Read(buf[:min(int64(len(buf)), off-read)])
		line += bytes.Count(buf[:n], []byte{'\n'})
		read += int64(n)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return 0
			}
			break
		}
	}
	if toValue {
		// off is where the decoder stopped: before the comma and the
		// blank lines that lead to the next value.
		b := make([]byte, 1)
		for {
			if n, err := r.Read(b); n == 0 || err != nil || (b[0] != '\n' && b[0] != ' ' && b[0] != ',' && b[0] != '\t' && b[0] != '\r') {
				break
			}
			if b[0] == '\n' {
				line++
			}
		}
	}
	return line
}

func init() {
	Register("sharegpt", newConversations(false))
	Register("jsonl", newConversations(true))
}
