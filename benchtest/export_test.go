package benchtest

import "github.com/benchserve/benchserve/internal/runner"

// SplitPatternForTest exposes splitPattern to the external tests.
var SplitPatternForTest = splitPattern

// The SLO and metric helpers the external tests exercise directly; users
// reach them through WithSLO and BenchWorkload.
var (
	CheckSLOs    = checkSLOs
	PayloadStats = payloadStats
	ReportStats  = reportStats
)

// The external tests on a shared machine test everything but the
// client's verdict (TestFailClient does): their lag limit is an hour.
func init() { clientLimits = &runner.ClientLimits{LagFloorMS: 3_600_000, CPUUtil: 1.01} }
