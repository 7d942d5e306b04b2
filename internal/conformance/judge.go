package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/schema"
	"github.com/benchserve/benchserve/internal/scrape"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

func pass(format string, args ...any) Outcome {
	return Outcome{Verdict: contract.Pass, Evidence: fmt.Sprintf(format, args...)}
}

func skip(format string, args ...any) Outcome {
	return Outcome{Verdict: contract.Skip, Evidence: fmt.Sprintf(format, args...)}
}

func failed(sent, got, format string, args ...any) Outcome {
	return Outcome{Verdict: contract.Fail, Evidence: fmt.Sprintf(format, args...), Sent: sent, Received: got}
}

// withStream fills the stream fields of an outcome.
func (st *streamed) with(o Outcome) Outcome {
	o.Stream, o.StreamErr = st.res, st.err
	if o.Status == 0 {
		o.Status = st.res.StatusCode
	}
	if o.Sent == "" && o.Verdict == contract.Fail {
		o.Sent = st.sentText()
	}
	return o
}

func (r *runner) run(ctx context.Context) Outcome {
	switch r.kind {
	case contract.CompletionObject:
		return r.completionObject(ctx)
	case contract.UsagePromptAgrees, contract.StreamAgrees, contract.ToolArgsAgree:
		return r.compare(ctx)
	case contract.MalformedBody, contract.ErrorJSON, contract.UnknownModel, contract.EmptyMessages:
		return r.errorAnswer(ctx)
	case contract.WrongAPIKey:
		return r.wrongKey(ctx)
	case contract.ModelsList:
		return r.models(ctx)
	case contract.CancelStops:
		return r.cancel(ctx)
	}
	st, err := r.stream(ctx, 0)
	if err != nil {
		return failed("", "", "%v", err)
	}
	return st.with(r.judgeStream(st))
}

// failedStream is the outcome of a stream that gave no chunk to judge.
func (st *streamed) failedStream() (Outcome, bool) {
	if st.httpStatus() != 0 || st.err != nil && len(st.chunks) == 0 {
		return failed(st.sentText(), st.errText(), "the request failed: %v", st.err), true
	}
	var se *stream.ServerError
	if errors.As(st.err, &se) {
		return failed(st.sentText(), st.errText(), "the server reported an error inside the stream: %v", st.err), true
	}
	return Outcome{}, false
}

func (st *streamed) errText() string {
	var he *stream.HTTPError
	if errors.As(st.err, &he) {
		return fmt.Sprintf("HTTP %d: %s", he.StatusCode, contract.Cut(he.Error(), EvidenceRunes))
	}
	if n := len(st.res.Events); n > 0 {
		return st.eventText(n)
	}
	if st.err != nil {
		return contract.Cut(st.err.Error(), EvidenceRunes)
	}
	return "no events"
}

// eventText renders event i (1-based) of the stream.
func (st *streamed) eventText(i int) string {
	ev := st.res.Events[i-1]
	switch {
	case ev.Error != "":
		return fmt.Sprintf("event %d: error: %s", i, contract.Cut(ev.Error, EvidenceRunes))
	case ev.Type != "":
		return fmt.Sprintf("event %d: event: %s data: %s", i, ev.Type, contract.Cut(ev.Data, EvidenceRunes))
	}
	return fmt.Sprintf("event %d: data: %s", i, contract.Cut(ev.Data, EvidenceRunes))
}

func (r *runner) judgeStream(st *streamed) Outcome {
	if r.kind == contract.StreamFraming {
		return r.framing(st)
	}
	if r.kind == contract.ChoicesN {
		if s := st.httpStatus(); s >= 400 && s < 500 {
			if nMentioned.MatchString(st.err.Error()) {
				return pass("refused with HTTP %d naming n: %s", s, contract.Cut(st.err.Error(), 120))
			}
			return failed(st.sentText(), st.errText(), "HTTP %d does not say n is unsupported", s)
		}
	}
	if r.kind == contract.JSONSchema || r.kind == contract.ReasoningSeparated {
		if s := st.httpStatus(); s >= 400 && s < 500 {
			if r.kind == contract.ReasoningSeparated {
				return skip("the server refused the request (HTTP %d): %s", s, contract.Cut(st.err.Error(), 160))
			}
			return pass("refused with HTTP %d (json_schema unsupported, said so): %s", s, contract.Cut(st.err.Error(), 160))
		}
	}
	if o, bad := st.failedStream(); bad {
		return o
	}
	res := st.res
	switch r.kind {
	case contract.StreamSameID:
		return sameID(st)
	case contract.StreamFirstRole:
		return firstRole(st)
	case contract.StreamFinishOnce:
		return finishOnce(st)
	case contract.StreamUsageChunk:
		return usageChunk(st)
	case contract.UsageTotal:
		u, o, ok := needUsage(st)
		if !ok {
			return o
		}
		if u.TotalTokens != u.PromptTokens+u.CompletionTokens {
			return failed(st.sentText(), st.usageText(), "total_tokens %d != prompt_tokens %d + completion_tokens %d", u.TotalTokens, u.PromptTokens, u.CompletionTokens)
		}
		return pass("total_tokens %d = %d + %d", u.TotalTokens, u.PromptTokens, u.CompletionTokens)
	case contract.UsageMaxTokens:
		u, o, ok := needUsage(st)
		if !ok {
			return o
		}
		limit := r.limit("max_tokens")
		if u.CompletionTokens > limit {
			return failed(st.sentText(), st.usageText(), "completion_tokens %d > max_tokens %d", u.CompletionTokens, limit)
		}
		return pass("completion_tokens %d <= max_tokens %d", u.CompletionTokens, limit)
	case contract.UsageLengthFinish:
		limit := r.limit("max_tokens")
		n := res.TokenChunks
		if res.Usage != nil {
			n = res.Usage.CompletionTokens
		}
		if n < limit && res.FinishReason != "length" {
			return skip("the answer ended by itself after %d tokens (max_tokens %d): nothing was cut", n, limit)
		}
		for _, f := range finishes(res) {
			if f != "length" {
				return failed(st.sentText(), st.finishText(), "the answer reached max_tokens %d but finish_reason is %q", limit, f)
			}
		}
		return pass(`cut at max_tokens %d with finish_reason "length"`, limit)
	case contract.MaxCompletionToken:
		// The count only: how a cut answer ends is usage_length_finish's.
		limit := r.limit("max_completion_tokens")
		n, what := res.TokenChunks, "token chunks"
		if res.Usage != nil {
			n, what = res.Usage.CompletionTokens, "completion_tokens"
		}
		if n > limit {
			return failed(st.sentText(), st.usageText(), "%s %d > max_completion_tokens %d", what, n, limit)
		}
		return pass("%s %d <= max_completion_tokens %d (finish_reason %q)", what, n, limit, res.FinishReason)
	case contract.StopSequence:
		stops := contract.StopStrings(r.in.ExtraBody["stop"])
		if len(stops) == 0 {
			return failed("", "", "the case sends no stop sequence (extra_body.stop)")
		}
		for _, s := range stops {
			if strings.Contains(res.Content, s) {
				return failed(st.sentText(), "content: "+contract.Cut(res.Content, EvidenceRunes), "the content holds the stop string %q", s)
			}
		}
		if res.FinishReason == "length" {
			return skip("the answer reached max_tokens before any stop sequence came (content: %s)", contract.Cut(res.Content, 80))
		}
		if res.FinishReason != "stop" {
			return failed(st.sentText(), st.finishText(), "finish_reason is %q", res.FinishReason)
		}
		return pass(`content stops before %q, finish_reason "stop"`, stops[0])
	case contract.ChoicesN:
		want := r.intParam("n", 2)
		idx := choiceIndexes(st)
		exp := make([]int, want)
		for i := range exp {
			exp[i] = i
		}
		if !reflect.DeepEqual(idx, exp) {
			return failed(st.sentText(), st.finishText(), "n %d gave choice indexes %v", want, idx)
		}
		return pass("choices %v", idx)
	case contract.ToolChoiceNone, contract.ToolChoiceRequired, contract.ToolChoiceNamed, contract.ToolArguments, contract.ToolCallIDs, contract.ToolFinishReason, contract.ToolParallelFalse:
		return r.tools(st)
	case contract.JSONObject, contract.JSONSchema:
		if res.FinishReason == "length" {
			// The reference: the JSON may be partial when the answer was cut.
			return skip("the answer was cut at max_tokens, so its JSON cannot be complete (content: %s)", contract.Cut(res.Content, 80))
		}
		if r.kind == contract.JSONSchema {
			return r.jsonSchema(st)
		}
		c := strings.TrimSpace(res.Content)
		if !json.Valid([]byte(c)) {
			return failed(st.sentText(), "content: "+contract.Cut(res.Content, EvidenceRunes), "the content is not JSON")
		}
		return pass("content is JSON (%d chars)", len(c))
	case contract.ReasoningSeparated:
		return reasoning(st)
	}
	return failed("", "", "check %s: not a streamed check", r.kind)
}

var nMentioned = regexp.MustCompile(`(?i)\bn\b|\bchoices\b`)

func (r *runner) framing(st *streamed) Outcome {
	res := st.res
	if s := st.httpStatus(); s != 0 {
		return failed(st.sentText(), st.errText(), "the server answered HTTP %d, not a stream", s)
	}
	for i, ev := range res.Events {
		n := i + 1
		if ev.Error != "" || ev.Type == "error" {
			return failed(st.sentText(), st.eventText(n), "event %d is an error event", n)
		}
		data := strings.TrimSpace(ev.Data)
		if data == "" || data == "[DONE]" {
			continue
		}
		var c struct {
			Object string `json:"object"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return failed(st.sentText(), st.eventText(n), "event %d is not JSON: %v", n, err)
		}
		if c.Object != "chat.completion.chunk" {
			return failed(st.sentText(), st.eventText(n), "event %d has object %q, not \"chat.completion.chunk\"", n, c.Object)
		}
	}
	if !res.Done {
		got := "no events"
		if len(res.Events) > 0 {
			got = st.eventText(len(res.Events))
		}
		if st.err != nil && !errors.Is(st.err, stream.ErrTruncated) {
			return failed(st.sentText(), "last "+got, "the stream failed after %d events without data: [DONE]: %s", res.EventsSeen, contract.Cut(st.err.Error(), 160))
		}
		return failed(st.sentText(), "last "+got, "the stream ended after %d events without data: [DONE]", res.EventsSeen)
	}
	if st.err != nil {
		return failed(st.sentText(), st.errText(), "the stream failed: %v", st.err)
	}
	return pass("%d events, %d chunks, then data: [DONE]", res.EventsSeen, len(st.chunks))
}

func sameID(st *streamed) Outcome {
	var id, model *string
	for _, v := range st.chunks {
		if v.err != nil {
			continue
		}
		if v.c.ID == nil || *v.c.ID == "" {
			return failed("", v.text(), "event %d has no id", v.event)
		}
		if id == nil {
			id, model = v.c.ID, v.c.Model
			if model == nil || *model == "" {
				return failed("", v.text(), "event %d has no model", v.event)
			}
			continue
		}
		if *v.c.ID != *id {
			return failed("", v.text(), "event %d has id %q, the first chunk %q", v.event, *v.c.ID, *id)
		}
		if v.c.Model == nil || *v.c.Model != *model {
			got := "none"
			if v.c.Model != nil {
				got = fmt.Sprintf("%q", *v.c.Model)
			}
			return failed("", v.text(), "event %d has model %s, the first chunk %q", v.event, got, *model)
		}
	}
	if id == nil {
		return failed("", st.errText(), "no chunk came")
	}
	return pass("%d chunks with id %q and model %q", len(st.chunks), *id, *model)
}

func index(c wireChoice) int {
	if c.Index == nil {
		return 0
	}
	return *c.Index
}

func firstRole(st *streamed) Outcome {
	seen := map[int]bool{}
	for _, v := range st.chunks {
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			i := index(ch)
			if seen[i] || ch.Delta == nil {
				continue
			}
			seen[i] = true
			if ch.Delta.Role != "assistant" {
				return failed("", v.text(), "the first delta of choice %d has role %q", i, ch.Delta.Role)
			}
		}
	}
	if len(seen) == 0 {
		return failed("", st.errText(), "no choice came")
	}
	return pass(`the first delta of %d choice(s) has role "assistant"`, len(seen))
}

func finishOnce(st *streamed) Outcome {
	count := map[int]int{}
	var order []int
	for _, v := range st.chunks {
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			i := index(ch)
			if _, ok := count[i]; !ok {
				count[i] = 0
				order = append(order, i)
			}
			if count[i] > 0 && carries(ch.Delta) {
				return failed("", v.text(), "choice %d has content after its finish_reason", i)
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				count[i]++
				if count[i] > 1 {
					return failed("", v.text(), "choice %d has a second non-null finish_reason (%q)", i, *ch.FinishReason)
				}
			}
		}
	}
	if len(order) == 0 {
		return failed("", st.errText(), "no choice came")
	}
	for _, i := range order {
		if count[i] == 0 {
			return failed("", st.errText(), "choice %d ended without a finish_reason", i)
		}
	}
	return pass("%d choice(s), one finish_reason each", len(order))
}

func usageChunk(st *streamed) Outcome {
	var last *chunkView
	for i := range st.chunks {
		if st.chunks[i].err == nil {
			last = &st.chunks[i]
		}
	}
	if last == nil {
		return failed("", st.errText(), "no chunk came")
	}
	if last.c.Choices == nil || len(*last.c.Choices) != 0 || last.c.Usage == nil {
		what := "no usage"
		switch {
		case last.c.Usage != nil && last.c.Choices != nil && len(*last.c.Choices) > 0:
			what = fmt.Sprintf("usage on a chunk with %d choice(s)", len(*last.c.Choices))
		case last.c.Choices == nil:
			what = "no choices key"
		}
		return failed("", last.text(), "the last chunk is not the usage chunk: %s", what)
	}
	return pass("the last chunk (event %d) has choices [] and usage", last.event)
}

// usageText is the chunk that carried the last usage.
func (st *streamed) usageText() string {
	for i := len(st.chunks) - 1; i >= 0; i-- {
		if st.chunks[i].err == nil && st.chunks[i].c.Usage != nil {
			return st.chunks[i].text()
		}
	}
	return "no usage chunk"
}

// finishText is the chunk that carried the last finish_reason.
func (st *streamed) finishText() string {
	for i := len(st.chunks) - 1; i >= 0; i-- {
		v := st.chunks[i]
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				return v.text()
			}
		}
	}
	return st.errText()
}

func needUsage(st *streamed) (*results.Usage, Outcome, bool) {
	if st.res.Usage == nil {
		return nil, failed("", st.errText(), "no usage came (stream_options.include_usage was sent)"), false
	}
	return st.res.Usage, Outcome{}, true
}

func finishes(res *stream.Result) []string {
	if len(res.Choices) == 0 {
		return []string{res.FinishReason}
	}
	out := make([]string, len(res.Choices))
	for i, c := range res.Choices {
		out[i] = c.FinishReason
	}
	return out
}

func choiceIndexes(st *streamed) []int {
	seen := map[int]bool{}
	for _, v := range st.chunks {
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			seen[index(ch)] = true
		}
	}
	out := make([]int, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// limit is the token limit the request sent in field (max_tokens or
// max_completion_tokens): Protocol.Body's, else the case's max_tokens.
func (r *runner) limit(field string) int {
	if n, ok := contract.AsInt(r.s.Body[field]); ok {
		return n
	}
	if r.in.MaxTokens > 0 {
		return r.in.MaxTokens
	}
	return 256
}

func (r *runner) intParam(key string, def int) int {
	if n, ok := contract.AsInt(r.s.Body[key]); ok {
		return n
	}
	if n, ok := contract.AsInt(r.in.ExtraBody[key]); ok {
		return n
	}
	return def
}

func (r *runner) tools(st *streamed) Outcome {
	res := st.res
	calls := res.ToolCalls
	callText := func() string {
		b, _ := json.Marshal(calls)
		return "tool calls: " + contract.Cut(string(b), EvidenceRunes)
	}
	switch r.kind {
	case contract.ToolChoiceNone:
		if len(calls) > 0 {
			return failed("", callText(), "%d tool call(s) came for tool_choice \"none\"", len(calls))
		}
		if res.FinishReason == "tool_calls" {
			return failed("", st.finishText(), `finish_reason "tool_calls" with no tool call`)
		}
		return pass("no tool call, finish_reason %q", res.FinishReason)
	case contract.ToolChoiceRequired:
		if len(calls) == 0 {
			return failed("", "content: "+contract.Cut(res.Content, EvidenceRunes), "no tool call came")
		}
		return pass("%d tool call(s)", len(calls))
	case contract.ToolChoiceNamed:
		want := contract.NamedChoice(r.in.ExtraBody["tool_choice"])
		if want == "" {
			return failed("", "", "the case's tool_choice names no function")
		}
		if len(calls) == 0 {
			return failed("", "content: "+contract.Cut(res.Content, EvidenceRunes), "no tool call came; want a call to %q", want)
		}
		for _, c := range calls {
			if c.Function.Name != want {
				return failed("", callText(), "a call to %q; tool_choice names %q", c.Function.Name, want)
			}
		}
		return pass("%d call(s) to %q", len(calls), want)
	case contract.ToolParallelFalse:
		if len(calls) > 1 {
			return failed("", callText(), "%d tool calls came with parallel_tool_calls false", len(calls))
		}
		return pass("%d tool call(s)", len(calls))
	}
	if len(calls) == 0 {
		return skip("no tool call came to check (the model answered: %s)", contract.Cut(res.Content, 80))
	}
	switch r.kind {
	case contract.ToolArguments:
		schemas := contract.ToolSchemas(r.in.ExtraBody["tools"])
		for _, c := range calls {
			sch, ok := schemas[c.Function.Name]
			if !ok {
				return failed("", callText(), "a call to %q, which is not one of the request's tools", c.Function.Name)
			}
			if err := schema.Validate(sch, c.Function.Arguments); err != nil {
				return failed("", callText(), "the arguments of %q: %v", c.Function.Name, err)
			}
		}
		return pass("%d call(s) with arguments valid against their schemas", len(calls))
	case contract.ToolCallIDs:
		seen := map[string]bool{}
		for i, c := range calls {
			if c.ID == "" {
				return failed("", callText(), "tool call %d has no id", i)
			}
			if seen[c.ID] {
				return failed("", callText(), "tool call id %q is used twice", c.ID)
			}
			seen[c.ID] = true
		}
		return pass("%d call(s), distinct ids", len(calls))
	case contract.ToolFinishReason:
		if res.FinishReason != "tool_calls" {
			return failed("", st.finishText(), "%d tool call(s) but finish_reason %q", len(calls), res.FinishReason)
		}
		return pass(`finish_reason "tool_calls"`)
	}
	return failed("", "", "check %s: not a tool check", r.kind)
}

func (r *runner) jsonSchema(st *streamed) Outcome {
	rf, _ := r.in.ExtraBody["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	sch, ok := js["schema"]
	if !ok {
		return failed("", "", "the case's response_format has no json_schema.schema")
	}
	if err := schema.Validate(sch, st.res.Content); err != nil {
		return failed("", "content: "+contract.Cut(st.res.Content, EvidenceRunes), "the content: %v", err)
	}
	return pass("content valid against the schema")
}

func reasoning(st *streamed) Outcome {
	fields := map[string]bool{}
	for _, v := range st.chunks {
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			if ch.Delta == nil {
				continue
			}
			if ch.Delta.ReasoningContent != nil && *ch.Delta.ReasoningContent != "" {
				fields["reasoning_content"] = true
			}
			if ch.Delta.Reasoning != nil && *ch.Delta.Reasoning != "" {
				fields["reasoning"] = true
			}
		}
	}
	if i := strings.Index(st.res.Content, "<think>"); i >= 0 {
		return failed("", "content: "+contract.Cut(st.res.Content[i:], EvidenceRunes), "the content holds <think>")
	}
	if len(fields) == 0 {
		return skip("no reasoning arrived (a model that does not think, or one told not to)")
	}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Strings(names)
	return pass("reasoning in delta.%s", strings.Join(names, " and delta."))
}

// nonStreamed is a decoded chat.completion.
type nonStreamed struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Index   int `json:"index"`
		Message *struct {
			Role      string             `json:"role"`
			Content   *string            `json:"content"`
			ToolCalls []results.ToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *results.Usage `json:"usage"`
}

func (r *runner) completionObject(ctx context.Context) Outcome {
	ex, err := r.post(ctx)
	if err != nil {
		return failed("", "", "%v", err)
	}
	o := r.judgeCompletion(ex)
	o.Status = ex.status
	return o
}

func (r *runner) judgeCompletion(ex *exchange) Outcome {
	bad := func(format string, args ...any) Outcome {
		return failed(ex.sentText(), ex.gotText(), format, args...)
	}
	if ex.status != http.StatusOK {
		return bad("HTTP %d, not 200", ex.status)
	}
	var c nonStreamed
	if err := json.Unmarshal(ex.body, &c); err != nil {
		return bad("the body is not a JSON object: %v", err)
	}
	if c.Object != "chat.completion" {
		return bad("object %q, not \"chat.completion\"", c.Object)
	}
	if c.ID == "" {
		return bad("no id")
	}
	if len(c.Choices) == 0 {
		return bad("no choices")
	}
	for i, ch := range c.Choices {
		if ch.Message == nil {
			return bad("choices[%d] has no message", i)
		}
		if ch.Message.Role != "assistant" {
			return bad("choices[%d].message.role is %q", i, ch.Message.Role)
		}
		if ch.FinishReason == nil || *ch.FinishReason == "" {
			return bad("choices[%d] has no finish_reason", i)
		}
	}
	return pass("chat.completion %q with %d choice(s), finish_reason %q", c.ID, len(c.Choices), *c.Choices[0].FinishReason)
}

func (r *runner) compare(ctx context.Context) Outcome {
	st, err := r.stream(ctx, 0)
	if err != nil {
		return failed("", "", "%v", err)
	}
	if o, bad := st.failedStream(); bad {
		return st.with(o)
	}
	ex, err := r.post(ctx)
	if err != nil {
		return failed("", "", "%v", err)
	}
	if o := r.judgeCompletion(ex); o.Verdict != contract.Pass {
		o.Evidence = "the non-streamed answer: " + o.Evidence
		return st.with(o)
	}
	var c nonStreamed
	_ = json.Unmarshal(ex.body, &c)
	msg := c.Choices[0].Message
	both := func(format string, args ...any) Outcome {
		return st.with(failed(st.sentText()+" and non-streamed", "streamed "+st.usageText()+"; non-streamed "+ex.gotText(), format, args...))
	}
	res := st.res
	switch r.kind {
	case contract.UsagePromptAgrees:
		if res.Usage == nil || c.Usage == nil {
			return both("usage missing (streamed %v, non-streamed %v)", res.Usage != nil, c.Usage != nil)
		}
		if res.Usage.PromptTokens != c.Usage.PromptTokens {
			return both("prompt_tokens %d streamed, %d not streamed", res.Usage.PromptTokens, c.Usage.PromptTokens)
		}
		return st.with(pass("prompt_tokens %d both ways", c.Usage.PromptTokens))
	case contract.StreamAgrees:
		content := ""
		if msg.Content != nil {
			content = *msg.Content
		}
		if strings.TrimSpace(content) != strings.TrimSpace(res.Content) {
			return st.with(failed(st.sentText()+" and non-streamed", fmt.Sprintf("streamed content %q; non-streamed %q", contract.Cut(res.Content, 180), contract.Cut(content, 180)), "the contents differ"))
		}
		if a, b := callNames(res.ToolCalls), callNames(msg.ToolCalls); !reflect.DeepEqual(a, b) {
			return both("tool calls %v streamed, %v not streamed", a, b)
		}
		return st.with(pass("the same content (%d chars) and tool calls both ways", len(content)))
	case contract.ToolArgsAgree:
		a, b := res.ToolCalls, msg.ToolCalls
		if len(a) == 0 && len(b) == 0 {
			return st.with(skip("no tool call came either way"))
		}
		got := func() string {
			x, _ := json.Marshal(a)
			y, _ := json.Marshal(b)
			return fmt.Sprintf("streamed %s; non-streamed %s", contract.Cut(string(x), 200), contract.Cut(string(y), 200))
		}
		if len(a) != len(b) {
			return st.with(failed(st.sentText()+" and non-streamed", got(), "%d tool call(s) streamed, %d not streamed", len(a), len(b)))
		}
		for i := range a {
			if a[i].Function.Name != b[i].Function.Name || !sameJSON(a[i].Function.Arguments, b[i].Function.Arguments) {
				return st.with(failed(st.sentText()+" and non-streamed", got(), "tool call %d differs", i))
			}
		}
		return st.with(pass("%d tool call(s), the same arguments both ways", len(a)))
	}
	return failed("", "", "check %s: not a comparison", r.kind)
}

func callNames(calls []results.ToolCall) []string {
	out := []string{}
	for _, c := range calls {
		out = append(out, c.Function.Name)
	}
	return out
}

// sameJSON reports whether two JSON texts hold equal values (key order
// and spacing aside); text that is not JSON is compared as is.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

func (r *runner) errorAnswer(ctx context.Context) Outcome {
	ex, err := r.post(ctx)
	if err != nil {
		return failed("", "", "%v", err)
	}
	o := r.judgeError(ex)
	o.Status = ex.status
	if o.Verdict == contract.Fail && o.Sent == "" {
		o.Sent, o.Received = ex.sentText(), ex.gotText()
	}
	return o
}

func (r *runner) judgeError(ex *exchange) Outcome {
	if ex.status == 0 {
		return failed("", "", "no answer: %v", ex.err)
	}
	s := ex.status
	switch r.kind {
	case contract.MalformedBody:
		switch {
		case s == http.StatusBadRequest:
			return pass("HTTP 400")
		case s >= 400 && s < 500:
			return pass("HTTP %d (a 4xx: the client's fault, not retried; 400 is the reference's)", s)
		}
		return failed("", "", "HTTP %d for a body that is not JSON", s)
	case contract.EmptyMessages:
		if s >= 400 && s < 500 {
			return pass("HTTP %d", s)
		}
		return failed("", "", "HTTP %d for empty messages", s)
	case contract.ErrorJSON:
		if s < 400 {
			return skip("no error came (HTTP %d)", s)
		}
		var m map[string]any
		if err := json.Unmarshal(bytes.TrimSpace(ex.body), &m); err != nil {
			return failed("", "", "the HTTP %d body is not a JSON object (%s)", s, orNone(ex.contentType))
		}
		return pass("HTTP %d with a JSON body (%s)", s, orNone(ex.contentType))
	case contract.UnknownModel:
		if s != http.StatusNotFound && s != http.StatusBadRequest {
			return failed("", "", "HTTP %d for an unknown model", s)
		}
		var e struct {
			Error *struct {
				Message *string `json:"message"`
				Type    *string `json:"type"`
			} `json:"error"`
		}
		if json.Unmarshal(ex.body, &e) != nil || e.Error == nil {
			return failed("", "", "HTTP %d without the error object {\"error\": {…}}", s)
		}
		if e.Error.Message == nil || *e.Error.Message == "" {
			return failed("", "", "error.message is missing")
		}
		if e.Error.Type == nil {
			return failed("", "", "error.type is missing")
		}
		return pass("HTTP %d, error type %q: %s", s, *e.Error.Type, contract.Cut(*e.Error.Message, 100))
	}
	return failed("", "", "check %s: not an error check", r.kind)
}

func (r *runner) wrongKey(ctx context.Context) Outcome {
	body, err := r.body(false)
	if err != nil {
		return failed("", "", "%v", err)
	}
	noKey, wrongKey := "", WrongKey
	open := r.do(ctx, http.MethodPost, contract.EndpointChat, body, &noKey)
	if open.status == 0 {
		return failed(open.sentText(), open.gotText(), "no answer without a key")
	}
	if open.status >= 200 && open.status < 300 {
		return skip("the server answers without an API key (HTTP %d): it requires none", open.status)
	}
	ex := r.do(ctx, http.MethodPost, contract.EndpointChat, body, &wrongKey)
	if ex.status != http.StatusUnauthorized {
		o := failed(ex.sentText()+" with a wrong key", ex.gotText(), "HTTP %d for a wrong key (HTTP %d without one)", ex.status, open.status)
		o.Status = ex.status
		return o
	}
	return Outcome{Verdict: contract.Pass, Evidence: fmt.Sprintf("HTTP %d without a key, 401 with a wrong one", open.status), Status: ex.status}
}

func (r *runner) models(ctx context.Context) Outcome {
	ex := r.do(ctx, http.MethodGet, contract.EndpointModels, nil, nil)
	bad := func(format string, args ...any) Outcome {
		o := failed(ex.sentText(), ex.gotText(), format, args...)
		o.Status = ex.status
		return o
	}
	if ex.status != http.StatusOK {
		return bad("HTTP %d, not 200", ex.status)
	}
	var l struct {
		Object string `json:"object"`
		Data   *[]struct {
			ID     *string `json:"id"`
			Object string  `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(ex.body, &l); err != nil {
		return bad("the body is not a JSON object: %v", err)
	}
	if l.Object != "list" {
		return bad("object %q, not \"list\"", l.Object)
	}
	if l.Data == nil {
		return bad("no data list")
	}
	found := ""
	for i, m := range *l.Data {
		if m.ID == nil || *m.ID == "" {
			return bad("data[%d] has no id", i)
		}
		if m.Object != "model" {
			return bad("data[%d] has object %q, not \"model\"", i, m.Object)
		}
		// Ollama lists "name:latest" for the model a client calls "name".
		if *m.ID == r.t.Model || *m.ID == r.t.Model+":latest" {
			found = *m.ID
		}
	}
	if found == "" {
		return bad("the model in use, %q, is not listed", r.t.Model)
	}
	return Outcome{Verdict: contract.Pass, Evidence: fmt.Sprintf("%d model(s), %q among them", len(*l.Data), found), Status: ex.status}
}

// running reads the server's running-requests gauge.
func (r *runner) running(ctx context.Context) (float64, string, bool) {
	ex := r.do(ctx, http.MethodGet, "/metrics", nil, nil)
	if ex.status != http.StatusOK {
		return 0, "", false
	}
	v, name, ok, err := scrape.ParseRunning(ex.body, ex.contentType)
	return v, name, ok && err == nil
}

func (r *runner) cancel(ctx context.Context) Outcome {
	base, gauge, ok := r.running(ctx)
	if !ok {
		return skip("the server has no running-requests gauge on /metrics (%s)", strings.Join(scrape.RunningGauges, ", "))
	}
	st, err := r.stream(ctx, r.s.CancelAfter)
	if err != nil {
		return failed("", "", "%v", err)
	}
	if !errors.Is(st.err, stream.ErrStopped) {
		if st.err == nil {
			return st.with(skip("the answer ended after %d token chunks, before the client closed it", st.res.TokenChunks))
		}
		o, _ := st.failedStream()
		if o.Verdict == "" {
			o = failed(st.sentText(), st.errText(), "the stream failed: %v", st.err)
		}
		return st.with(o)
	}
	closed := time.Now()
	v := base
	for {
		// Read before the scrape: the last scrape starts after the grace,
		// however long a scrape takes on a busy machine.
		over := time.Since(closed) > CancelGrace
		v, _, ok = r.running(ctx)
		if ok && v <= base {
			return st.with(pass("%s fell back to %g within %d ms of the close", gauge, v, time.Since(closed).Milliseconds()))
		}
		if over || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return st.with(failed(st.sentText(), fmt.Sprintf("%s %g, %g before the request", gauge, v, base),
		"%s still counts the request %s after the client closed the stream", gauge, CancelGrace))
}
