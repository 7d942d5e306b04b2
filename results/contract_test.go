package results_test

import (
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

func contractPayload(runID string, cs ...results.Contract) *results.Payload {
	p := &results.Payload{RunID: runID}
	for _, c := range cs {
		c := c
		p.Results = append(p.Results, results.Record{CaseID: c.Name, Contract: &c})
	}
	return p
}

func TestContractOutcome(t *testing.T) {
	tests := []struct {
		c    results.Contract
		want string
	}{
		{results.Contract{Level: "MUST", Verdict: "pass"}, "pass"},
		{results.Contract{Level: "MUST", Verdict: "fail", Failing: true}, "fail"},
		{results.Contract{Level: "SHOULD", Verdict: "fail"}, "warn"},
		{results.Contract{Level: "SHOULD", Verdict: "fail", Failing: true}, "fail"},
		{results.Contract{Level: "MAY", Verdict: "fail"}, "info"},
		{results.Contract{Level: "MUST", Verdict: "skip"}, "skip"},
		// The server went away first: a failing skip is not a rule that
		// did not apply (a newcomer's review read 49 cells of "skip").
		{results.Contract{Level: "SHOULD", Verdict: "skip", Failing: true, Evidence: "not checked: the server went away"}, "not checked"},
		{results.Contract{Level: "SHOULD", Verdict: "unsupported"}, "unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.c.Level+"/"+tt.c.Verdict+"/"+tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.c.Outcome())
		})
	}
}

func TestContractMatrix(t *testing.T) {
	framing := results.Contract{Name: "stream.framing", Level: "MUST", Verdict: "pass", Rule: "ends with data: [DONE]", Reference: "https://platform.openai.com/docs/api-reference/chat/streaming"}
	n := results.Contract{Name: "choices.n", Level: "SHOULD", Verdict: "pass", Rule: "n: 2 gives choices 0 | 1", Reference: "https://platform.openai.com/docs/api-reference/chat/create"}
	nWarn := n
	nWarn.Verdict = "fail"
	table, err := results.ContractMatrix([]string{"fixture", "server A"},
		[]*results.Payload{contractPayload("a", framing, n), contractPayload("b", nWarn)})
	require.NoError(t, err)
	snaps.MatchSnapshot(t, table)

	_, err = results.ContractMatrix([]string{"only"}, []*results.Payload{{RunID: "x"}})
	assert.ErrorContains(t, err, "only (run x) has no contract record")
	_, err = results.ContractMatrix([]string{"a", "b"}, []*results.Payload{{RunID: "x"}})
	assert.ErrorContains(t, err, "2 labels for 1 payloads")
}

// A label is a header cell: a "|" in it (a version string, "vLLM | main")
// is escaped, or the table would gain a column.
func TestContractMatrixEscapesLabels(t *testing.T) {
	c := results.Contract{Name: "stream.framing", Level: "MUST", Verdict: "pass", Rule: "r", Reference: "https://example.com"}
	table, err := results.ContractMatrix([]string{"vLLM | main"}, []*results.Payload{contractPayload("a", c)})
	require.NoError(t, err)
	assert.Contains(t, table, `| contract | level | rule | vLLM \| main |`+"\n|---|---|---|---|\n", "one column, the bar escaped")
}

// A contract whose feature the server refused is its own cell, apart
// from fail (warn) and skip.
func TestContractMatrixSaysUnsupported(t *testing.T) {
	n := results.Contract{Name: "choices.n", Level: "SHOULD", Verdict: "unsupported", Rule: "r", Reference: "https://example.com"}
	table, err := results.ContractMatrix([]string{"server"}, []*results.Payload{contractPayload("a", n)})
	require.NoError(t, err)
	assert.Contains(t, table, "| `choices.n` | SHOULD | [r](https://example.com) | unsupported |\n", "the cell says unsupported")
}
