package results

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummarizeLengthsCountsShortEndingsByWhy(t *testing.T) {
	stop, length := "stop", "length"
	rec := func(in, out, prompt, completion int, finish *string, errText string) Record {
		return Record{Requested: &Requested{InputTokens: in, OutputTokens: out},
			Metrics: Metrics{PromptTokens: prompt, CompletionTokens: completion, UsagePresent: errText == ""},
			Quality: Quality{FinishReason: finish}, Error: errText}
	}
	s := summarizeLengths([]Record{
		rec(512, 64, 512, 64, &length, ""),
		rec(512, 64, 517, 64, &length, ""), // within 1%
		rec(512, 64, 530, 20, &stop, ""),   // off by 3.5%, ended at EOS
		rec(512, 64, 0, 0, nil, "request error: HTTP 500"),
		{CaseID: "written"}, // not generated: left out
	})
	require.NotNil(t, s)
	assert.Equal(t, 4, s.Requests)
	assert.Equal(t, 1, s.InputOffBy1Pct, "only the 530 is beyond ±1% of 512")
	assert.Equal(t, 2, s.EndedShort)
	assert.Equal(t, map[string]int{"stop": 1, "error": 1}, s.EndedShortBy)
	require.NotNil(t, s.RequestedInputTokens)
	assert.Equal(t, 512.0, s.RequestedInputTokens.Mean)
	require.NotNil(t, s.InputTokens)
	assert.Equal(t, 530.0, s.InputTokens.Max, "achieved input over the requests with usage")
	require.NotNil(t, s.OutputTokens)
	assert.Equal(t, 20.0, s.OutputTokens.Min)
	assert.Nil(t, summarizeLengths([]Record{{CaseID: "written"}}), "no generated record, no block")
}
