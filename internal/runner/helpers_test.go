package runner_test

import (
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

type (
	dtoFamily     = dto.MetricFamily
	resultsRecord = results.Record
)

func sumCounter(f *dto.MetricFamily) float64 {
	if f == nil {
		return 0
	}
	total := 0.0
	for _, m := range f.GetMetric() {
		total += m.GetCounter().GetValue()
	}
	return total
}

func histCount(f *dto.MetricFamily) float64 {
	if f == nil {
		return 0
	}
	total := 0.0
	for _, m := range f.GetMetric() {
		total += float64(m.GetHistogram().GetSampleCount())
	}
	return total
}

// mustThresholds parses thresholds as a door does.
func mustThresholds(t *testing.T, exprs ...string) []results.Threshold {
	t.Helper()
	ths, err := results.ParseThresholds(exprs...)
	require.NoError(t, err)
	return ths
}
