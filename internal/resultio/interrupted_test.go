package resultio

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// TestInterruptedRecordRow: an interrupted record keeps the reference's
// columns; its row and its JSON say it was interrupted.
func TestInterruptedRecordRow(t *testing.T) {
	r := fixedRecords()[0]
	r.Error = "context canceled"
	results.MarkInterrupted(&r)
	row := RecordRowMap(r)
	assert.Len(t, row, len(WorkloadResultColumns), "the SQLite/CSV columns are unchanged")
	assert.Contains(t, row["quality_issues"], "interrupted: the run was stopped while this request was in flight", "the row says interrupted")
	assert.Equal(t, false, row["quality_ok"], "and not ok")

	data, err := FormatJSON(&results.Payload{Results: []results.Record{r}})
	require.NoError(t, err, "json")
	assert.Contains(t, string(data), `"interrupted": true`, "the record carries the marker")
}
