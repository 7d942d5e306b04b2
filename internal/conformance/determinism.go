package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/benchserve/benchserve/internal/contract"
)

// seedRepeats judges nonstream.seed_repeats: the case's request (at
// temperature 0 with a seed) sent non-streamed contract.SeedRepeatCount
// times gets the same content and tool calls each time.
func (r *contractRun) seedRepeats(ctx context.Context) Outcome {
	type answer struct {
		content string
		calls   []string
	}
	var first answer
	for i := range contract.SeedRepeatCount {
		ex, err := r.post(ctx)
		if err != nil {
			return failed("", "", "%v", err)
		}
		if o := r.judgeCompletion(ex); o.Verdict != contract.Pass {
			o.Evidence = fmt.Sprintf("answer %d: %s", i+1, o.Evidence)
			o.Status = ex.status
			return o
		}
		var c nonStreamed
		_ = json.Unmarshal(ex.body, &c)
		msg := c.Choices[0].Message
		a := answer{}
		if msg.Content != nil {
			a.content = *msg.Content
		}
		for _, call := range msg.ToolCalls {
			a.calls = append(a.calls, call.Function.Name+" "+call.Function.Arguments)
		}
		if i == 0 {
			first = a
			continue
		}
		if !reflect.DeepEqual(a, first) {
			o := failed(ex.sentText(), fmt.Sprintf("answer 1 content %q; answer %d %q", contract.Cut(first.content, 180), i+1, contract.Cut(a.content, 180)),
				"answer %d of the same seeded request at temperature 0 differs from answer 1", i+1)
			o.Status = ex.status
			return o
		}
	}
	return pass("the same answer (%d chars, %d tool call(s)) %d times", len(first.content), len(first.calls), contract.SeedRepeatCount)
}
