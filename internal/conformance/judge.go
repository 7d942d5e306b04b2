package conformance

import (
	"context"

	"github.com/benchserve/benchserve/internal/contract"
)

// run sends the contract's request(s) and judges the answer: the kinds
// that are not judged on one streamed answer have their own function;
// every other is judged by judgeStream.
func (r *contractRun) run(ctx context.Context) Outcome {
	if o, ok := r.run28(ctx); ok {
		return o
	}
	switch r.kind {
	case contract.CompletionObject:
		return r.completionObject(ctx)
	case contract.UsagePromptAgrees, contract.StreamAgrees, contract.ToolArgsAgree:
		return r.compare(ctx)
	case contract.MalformedBody, contract.ErrorJSON, contract.UnknownModel, contract.EmptyMessages, contract.StreamOptionsNoStream:
		return r.errorAnswer(ctx)
	case contract.NonObjectBody:
		return r.nonObjectBodies(ctx)
	case contract.SeedRepeats:
		return r.seedRepeats(ctx)
	case contract.EmbeddingsShape:
		return r.embeddingsShape(ctx)
	case contract.CompletionsIndex:
		return r.completionsIndex(ctx)
	case contract.ResponsesUsage:
		return r.responsesUsage(ctx)
	case contract.ResponsesEvents:
		return r.responsesEvents(ctx)
	case contract.WrongAPIKey:
		return r.wrongKey(ctx)
	case contract.ModelsList:
		return r.models(ctx)
	case contract.CancelStops:
		return r.cancel(ctx)
	case contract.CancelFreesCapacity:
		return r.freesCapacity(ctx)
	}
	st, err := r.stream(ctx, 0)
	if err != nil {
		return failed("", "", "%v", err)
	}
	o := st.with(r.judgeStream(st))
	if r.kind == contract.StreamFraming && o.Verdict == contract.Pass {
		return st.with(r.rawFraming(ctx, o))
	}
	return o
}

// judgeStream judges one streamed answer by the contract's kind: framing
// first (it judges the events themselves, failed or not), then a refusal
// the kind accepts, then a stream that gave nothing to judge, then the
// kind's own rule (each in the file of its contract group).
func (r *contractRun) judgeStream(st *streamed) Outcome {
	if r.kind == contract.StreamFraming {
		return r.framing(st)
	}
	if o, ok := r.refusal(st); ok {
		return o
	}
	if o, bad := st.failedStream(); bad {
		return o
	}
	if readsEvents[r.kind] {
		if why, cut := st.incomplete(); cut {
			return skip("%s", why)
		}
	}
	switch r.kind {
	case contract.StreamSameID:
		return sameID(st)
	case contract.StreamFirstRole:
		return firstRole(st)
	case contract.StreamFinishOnce:
		return finishOnce(st)
	case contract.StreamUsageChunk:
		return usageChunk(st)
	case contract.StreamUsageUnasked:
		return usageUnasked(st)
	case contract.UsageTotal:
		return usageTotal(st)
	case contract.UsageMaxTokens:
		return r.usageMaxTokens(st)
	case contract.UsageLengthFinish:
		return r.usageLengthFinish(st)
	case contract.MaxCompletionToken:
		return r.maxCompletionTokens(st)
	case contract.StopSequence:
		return r.stopSequence(st)
	case contract.StopSeveral:
		return r.stopSeveral(st)
	case contract.ChoicesN:
		return r.choicesN(st)
	case contract.ToolChoiceNone, contract.ToolChoiceRequired, contract.ToolChoiceNamed, contract.ToolArguments, contract.ToolCallIDs, contract.ToolFinishReason, contract.ToolParallelFalse:
		return r.tools(st)
	case contract.JSONObject, contract.JSONSchema:
		return r.structured(st)
	case contract.ReasoningSeparated:
		return reasoning(st)
	}
	return failed("", "", "check %s: not a streamed check", r.kind)
}

// readsEvents are the kinds judged on the stream's events one by one
// (not only on the answer the stream client assembled): a stream whose
// events were not all kept whole cannot be judged by them.
var readsEvents = map[contract.Kind]bool{
	contract.StreamSameID: true, contract.StreamFirstRole: true, contract.StreamFinishOnce: true,
	contract.StreamUsageChunk: true, contract.ChoicesN: true, contract.ReasoningSeparated: true,
	contract.StreamUsageUnasked: true,
}

// refusal judges a 4xx answer to a request the kind lets a server refuse:
// n (choices.n is unsupported when the error names n, a failure when it
// does not), json_schema (unsupported: the server said it does not serve
// it) and thinking (reasoning.separated skips: the model does not think). ok is false when the kind has no refusal rule or none came.
func (r *contractRun) refusal(st *streamed) (o Outcome, ok bool) {
	s := st.httpStatus()
	if s < 400 || s >= 500 {
		return Outcome{}, false
	}
	switch r.kind {
	case contract.ChoicesN:
		if nMentioned.MatchString(st.err.Error()) {
			return unsupported("refused with HTTP %d naming n: %s", s, contract.Cut(st.err.Error(), 120)), true
		}
		return failed(st.sentText(), st.errText(), "HTTP %d does not say n is unsupported", s), true
	case contract.ReasoningSeparated:
		return skip("the server refused the request (HTTP %d): %s", s, contract.Cut(st.err.Error(), 160)), true
	case contract.JSONSchema:
		return unsupported("refused with HTTP %d (json_schema unsupported, said so): %s", s, contract.Cut(st.err.Error(), 160)), true
	}
	return Outcome{}, false
}
