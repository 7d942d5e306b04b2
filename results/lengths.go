package results

// LengthSummary compares what generated requests asked for with what the
// server did (issue 27 items 1 and 2): the requested and achieved input
// and output lengths as distributions, and how many requests ended short
// of their asked output and why. It covers the measured records that
// carry Requested; the summary has none (nil) when no record does.
type LengthSummary struct {
	// Requests counts the records summarized.
	Requests int `json:"requests"`
	// RequestedInputTokens and InputTokens are the requested input length
	// and the server's usage.prompt_tokens (which includes the chat
	// template), in tokens; InputTokens covers the records with usage.
	RequestedInputTokens *Stats `json:"requested_input_tokens"`
	InputTokens          *Stats `json:"input_tokens"`
	// RequestedOutputTokens and OutputTokens are the asked output length
	// (max_tokens) and usage.completion_tokens, over the records that
	// asked for one.
	RequestedOutputTokens *Stats `json:"requested_output_tokens"`
	OutputTokens          *Stats `json:"output_tokens"`
	// InputOffBy1Pct counts the records whose prompt_tokens differ from
	// the requested input length by more than 1%: a template's overhead or
	// a tokenizer that counts otherwise.
	InputOffBy1Pct int `json:"input_off_by_1pct"`
	// EndedShort counts the records with fewer completion tokens than
	// asked; EndedShortBy splits them by why: the finish_reason ("stop":
	// an end-of-sequence token or a stop string, which servers report
	// alike), "error" for a failed request, "unknown" when no finish
	// reason came.
	EndedShort   int            `json:"ended_short"`
	EndedShortBy map[string]int `json:"ended_short_by,omitempty"`
}

// summarizeLengths returns the LengthSummary of records (interrupted ones
// left out), nil when none carries Requested.
func summarizeLengths(records []Record) *LengthSummary {
	var reqIn, in, reqOut, out []float64
	s := &LengthSummary{}
	for _, r := range records {
		q := r.Requested
		if q == nil || r.Interrupted {
			continue
		}
		s.Requests++
		reqIn = append(reqIn, float64(q.InputTokens))
		if r.Error == "" && r.Metrics.UsagePresent {
			in = append(in, float64(r.Metrics.PromptTokens))
			if d := r.Metrics.PromptTokens - q.InputTokens; q.InputTokens > 0 && float64(max(d, -d)) > 0.01*float64(q.InputTokens) {
				s.InputOffBy1Pct++
			}
		}
		if q.OutputTokens <= 0 {
			continue
		}
		reqOut = append(reqOut, float64(q.OutputTokens))
		if r.Error == "" {
			out = append(out, float64(r.Metrics.CompletionTokens))
		}
		if r.Error == "" && r.Metrics.CompletionTokens >= q.OutputTokens {
			continue
		}
		s.EndedShort++
		why := "unknown"
		switch {
		case r.Error != "":
			why = "error"
		case r.Quality.FinishReason != nil && *r.Quality.FinishReason != "":
			why = *r.Quality.FinishReason
		}
		if s.EndedShortBy == nil {
			s.EndedShortBy = map[string]int{}
		}
		s.EndedShortBy[why]++
	}
	if s.Requests == 0 {
		return nil
	}
	s.RequestedInputTokens, s.InputTokens = statsOrNil(reqIn), statsOrNil(in)
	s.RequestedOutputTokens, s.OutputTokens = statsOrNil(reqOut), statsOrNil(out)
	return s
}
