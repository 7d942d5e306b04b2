package cli

import (
	"fmt"
	"io"
	"sync"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// answerLine is the extra progress line under a case whose answer was
// more than content: "reasoning N chars (M chunks), content K chars",
// the refusal, the number of choices, and why the decode rates are null.
// "" for a plain answer (the reference's line says everything).
func answerLine(rec results.Record) string {
	q, m := rec.Quality, rec.Metrics
	var s string
	if q.ReasoningChars > 0 || q.ReasoningChunks > 0 {
		s = fmt.Sprintf("reasoning %d chars (%d chunks), content %d chars", q.ReasoningChars, q.ReasoningChunks, q.ContentChars)
	}
	add := func(part string) {
		if s != "" {
			s += "; "
		}
		s += part
	}
	if q.Refusal != "" {
		add(`refusal "` + present.Message(q.Refusal) + `"`)
	}
	if len(q.Choices) > 0 {
		add(fmt.Sprintf("%d choices", len(q.Choices)))
	}
	if m.DecodeTiming != "" && m.DecodeTiming != "no_tokens" {
		add("tpot/gen_tps not measured: " + present.Message(m.DecodeTimingNote))
	}
	return s
}

// cacheResetReporter returns a runner.RunOptions.CacheReset callback that
// says on w, once per scope, that the server refused a cache reset (the
// run then measures whatever the server has cached).
func cacheResetReporter(w io.Writer) func(results.CacheEvent) {
	var mu sync.Mutex
	said := map[string]bool{}
	return func(ev results.CacheEvent) {
		note := runner.CacheResetNote(ev.Scope, ev.Event)
		mu.Lock()
		defer mu.Unlock()
		if note == "" || said[ev.Scope] {
			return
		}
		said[ev.Scope] = true
		fmt.Fprintf(w, "benchserve: %s\n", present.Message(note))
	}
}
