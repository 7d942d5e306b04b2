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
