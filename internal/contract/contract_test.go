package contract_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/contract"
)

func TestFailingByLevel(t *testing.T) {
	assert.True(t, contract.Failing(contract.Must, contract.Fail, false), "a MUST that fails fails the run")
	assert.False(t, contract.Failing(contract.Should, contract.Fail, false), "a SHOULD is a warning")
	assert.True(t, contract.Failing(contract.Should, contract.Fail, true), "a SHOULD fails a strict run")
	assert.False(t, contract.Failing(contract.May, contract.Fail, true), "a MAY never fails")
	assert.False(t, contract.Failing(contract.Must, contract.Skip, true), "a skip never fails")
}

func TestCutIsRuneSafe(t *testing.T) {
	assert.Equal(t, "héé…", contract.Cut("hééllo", 3))
	assert.Equal(t, "日本…", contract.Cut("日本語", 2), "never splits a character")
	assert.Equal(t, "short", contract.Cut("short", 10))
}

// The fixture server and the judge read "stop" alike: an empty string stops
// nothing, whether alone or in a list.
func TestStopStringsLeavesEmptyOut(t *testing.T) {
	assert.Equal(t, []string{"END"}, contract.StopStrings("END"))
	assert.Nil(t, contract.StopStrings(""), `"stop": "" is no stop sequence`)
	assert.Equal(t, []string{"a", "b"}, contract.StopStrings([]any{"a", "", 3.0, "b"}))
	assert.Nil(t, contract.StopStrings(nil))
	assert.Nil(t, contract.StopStrings(map[string]any{"x": "y"}))
}
