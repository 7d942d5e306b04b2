package benchtest

import (
	"fmt"
	"math"
	"strconv"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/results"
)

// rate formats a rate with prec decimals, "null" when it was not measured
// (NaN: see results.Metrics.DecodeTiming).
func rate(v float64, prec int) string {
	if math.IsNaN(v) {
		return "null"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// answerNote is the test log's tail for what the answer was made of:
// content and reasoning side by side (and the refusal, cut, the choices),
// and why the decode rates are null. The record's notes are logged on
// lines of their own (report).
func answerNote(rec results.Record) string {
	q, m := rec.Quality, rec.Metrics
	s := fmt.Sprintf(" content_chars=%d reasoning_chars=%d reasoning_chunks=%d", q.ContentChars, q.ReasoningChars, q.ReasoningChunks)
	if q.ReasoningTokens != nil {
		s += fmt.Sprintf(" reasoning_tokens=%d", *q.ReasoningTokens)
	}
	if q.Refusal != "" {
		s += ` refusal="` + present.Message(q.Refusal) + `"`
	}
	if len(q.Choices) > 0 {
		s += fmt.Sprintf(" choices=%d", len(q.Choices))
	}
	if m.DecodeTiming != "" {
		s += fmt.Sprintf(" decode_timing=%s (%s)", m.DecodeTiming, m.DecodeTimingNote)
	}
	return s
}
