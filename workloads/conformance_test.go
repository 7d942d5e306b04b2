package workloads_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/workloads"
)

// TestConformanceSuiteParses: the shipped suite loads without a warning,
// every case is a contract, and every check kind has one.
func TestConformanceSuiteParses(t *testing.T) {
	w, err := workloads.Conformance()
	require.NoError(t, err)
	assert.Empty(t, w.Warnings)
	assert.Equal(t, "conformance", w.Name)
	kinds := map[contract.Kind]bool{}
	for _, c := range w.Cases {
		require.NotNil(t, c.Protocol, "case %s is a contract", c.ID)
		assert.NotEmpty(t, c.Tags, "case %s has a group tag", c.ID)
		kinds[contract.Kind(c.Protocol.Check)] = true
	}
	for _, k := range contract.Kinds() {
		assert.True(t, kinds[k], "check kind %s has a contract in the suite", k)
	}
	// The file on disk is the embedded one: a copy to extend is that file.
	disk, err := workloads.Load("conformance.json")
	require.NoError(t, err)
	assert.Len(t, disk.Cases, len(w.Cases))
}
