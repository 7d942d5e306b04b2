package report_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/report"
)

func TestLoadJournalIsOneRun(t *testing.T) {
	p := baselinePayload()
	path := resultio.JournalPath(filepath.Join(t.TempDir(), "out.json"))
	j, err := resultio.CreateJournal(path, resultio.JournalHeaderFor(p))
	require.NoError(t, err, "setup: journal")
	for _, r := range p.Results[:5] {
		require.NoError(t, j.Append(r), "setup: append")
	}
	require.NoError(t, j.Close(), "setup: close")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err, "setup: open")
	_, err = f.WriteString(`{"run_id": "` + p.RunID + `", "case_`)
	require.NoError(t, err, "setup: torn line")
	require.NoError(t, f.Close(), "setup: close")

	runs, err := report.Load(path)
	require.NoError(t, err, "a journal with a torn last line loads")
	require.Len(t, runs, 1, "one journal is one run")
	assert.Equal(t, "out", runs[0].Label, "labelled with the output's name")
	require.NotNil(t, runs[0].Payload, "a workload run")
	assert.Len(t, runs[0].Payload.Results, 5, "the finished records, nothing invented for the torn one")
	assert.Equal(t, p.RunID, runs[0].Payload.RunID, "the run id from the header")
	assert.Equal(t, 5, runs[0].Payload.Summary.CaseCount, "summarized from the journaled records")
}

func TestLoadRefusesDevicesAndOversizedInput(t *testing.T) {
	_, err := report.Load("/dev/zero")
	require.Error(t, err, "/dev/zero is refused, not read until memory runs out")
	assert.ErrorIs(t, err, report.ErrBadInput, "bad input")
	assert.ErrorIs(t, err, resultio.ErrNotAFile, "because it is a device")
	assert.ErrorContains(t, err, "/dev/zero", "names the file")

	big := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(big)
	require.NoError(t, err, "setup")
	require.NoError(t, f.Truncate(report.MaxInputBytes+1), "setup: sparse file one byte over the cap")
	require.NoError(t, f.Close(), "setup")
	_, err = report.Load(big)
	assert.True(t, errors.Is(err, resultio.ErrInputTooLarge), "over MaxInputBytes is refused before reading: %v", err)
	assert.ErrorContains(t, err, "big.json", "names the file")
}
