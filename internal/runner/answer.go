package runner

import (
	"errors"
	"fmt"
	"sort"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// ConsequencePrefix marks a check failure that follows from a failed
// request (no content, no finish reason, …): the request error is the
// record's first issue and these come after it, so the root cause is
// read first. The text after the prefix is the reference's issue text.
const ConsequencePrefix = "(because the request failed) "

// evaluateChoices runs the checks on every choice of res: one choice is
// checked as the reference does (issue texts unchanged); with several
// (n > 1) each choice is checked and its issues start with "choice N: ".
func evaluateChoices(spec *checks.Spec, status int, res *stream.Result) []checks.Issue {
	if len(res.Choices) == 0 {
		return checks.Evaluate(spec, checks.Response{
			StatusCode: status, FinishReason: res.FinishReason, Content: res.Content,
			ToolCalls: res.ToolCalls, Reasoning: res.Reasoning, Refusal: res.Refusal,
		})
	}
	var issues []checks.Issue
	for _, ch := range res.Choices {
		for _, is := range checks.Evaluate(spec, checks.Response{
			StatusCode: status, FinishReason: ch.FinishReason, Content: ch.Content,
			ToolCalls: ch.ToolCalls, Reasoning: ch.Reasoning, Refusal: ch.Refusal,
		}) {
			is.Message = fmt.Sprintf("choice %d: %s", ch.Index, is.Message)
			issues = append(issues, is)
		}
	}
	return issues
}

func hasReasoning(res *stream.Result) bool {
	if res.Reasoning != "" {
		return true
	}
	for _, ch := range res.Choices {
		if ch.Reasoning != "" {
			return true
		}
	}
	return false
}

// ThinkingIgnored is the note recorded when a case sent enable_thinking
// false and reasoning arrived anyway (chars code points of it): the server
// ignored the flag, and what the detected runtime (results.Runtime.Server)
// takes instead: Ollama reasoning_effort "none", vLLM and SGLang
// chat_template_kwargs {"enable_thinking": false}; for another or an
// unknown server, both.
func ThinkingIgnored(server string, chars int) string {
	head := fmt.Sprintf("enable_thinking=false was sent but %d chars of reasoning arrived: the server ignored it", chars)
	switch server {
	case "ollama":
		return head + `; Ollama turns thinking off with extra_body {"reasoning_effort": "none"}`
	case "vllm", "sglang", "vllm-mlx":
		return head + `; ` + server + ` turns thinking off with extra_body {"chat_template_kwargs": {"enable_thinking": false}}`
	}
	return head + `; Ollama turns thinking off with extra_body {"reasoning_effort": "none"}, vLLM and SGLang with {"chat_template_kwargs": {"enable_thinking": false}}`
}

// reasoningTokens is usage.completion_tokens_details.reasoning_tokens, nil
// when the server did not report it.
func reasoningTokens(u *results.Usage) *int {
	if u == nil || u.CompletionTokensDetails == nil || u.CompletionTokensDetails.ReasoningTokens == nil {
		return nil
	}
	n := *u.CompletionTokensDetails.ReasoningTokens
	return &n
}

// responseStatus is the status the basic validation sees. The reference
// passes 500 for every failed request; benchserve passes the real one: an
// HTTP error's status, 200 for a failure inside a 200 stream (a timeout,
// an error event, a cut connection), and 0 when no response arrived at
// all (connection refused): no HTTP error is invented; the request error
// issue says what happened.
func responseStatus(res *stream.Result, err error) int {
	if err == nil {
		return 200
	}
	var he *stream.HTTPError
	if errors.As(err, &he) {
		return he.StatusCode
	}
	if res != nil {
		return res.StatusCode
	}
	return 0
}

// policy resolves the record's policy block (reference:
// _compute_within_policy_timeout): within_timeout is nil without a
// timeout, false when the request errored, else e2e <= timeout.
func policy(timeoutMS *float64, errored bool, e2eMS float64) results.Policy {
	p := results.Policy{TimeoutMS: timeoutMS}
	if timeoutMS == nil {
		return p
	}
	within := !errored && e2eMS <= *timeoutMS
	p.WithinTimeout = &within
	return p
}

// toolSummary builds the record's tool_calls block (reference:
// _build_tool_calls_summary); nil when no tool call was streamed.
func toolSummary(res *stream.Result) *results.ToolCallsSummary {
	return summarizeTools(res.ToolCalls)
}

func summarizeTools(calls []results.ToolCall) *results.ToolCallsSummary {
	if len(calls) == 0 {
		return nil
	}
	names := make([]string, len(calls))
	for i, tc := range calls {
		names[i] = tc.Function.Name
	}
	sort.Strings(names)
	return &results.ToolCallsSummary{Count: len(calls), Names: names, Raw: calls}
}

// itlStats summarizes every chunk gap of res, kept or not (nil without
// gaps): exact percentiles while every gap was kept, else estimated from
// the stream's bounded histogram within stream.GapRelativeError.
func itlStats(res *stream.Result) *results.ITLStats {
	if res.Gaps.Count == 0 {
		return nil
	}
	st := &results.ITLStats{MinMS: res.Gaps.MinMS, MaxMS: res.Gaps.MaxMS, MeanMS: res.Gaps.MeanMS(),
		P50MS: res.ITLPercentile(50), P95MS: res.ITLPercentile(95), P99MS: res.ITLPercentile(99)}
	if res.Gaps.Count > len(res.ITLms) {
		st.Estimated, st.RelativeError = true, stream.GapRelativeError
	}
	return st
}

// measured is &x when ok, else nil (written as null).
func measured(x float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &x
}
