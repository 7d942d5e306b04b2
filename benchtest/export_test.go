package benchtest

// SplitPatternForTest exposes splitPattern to the external tests.
var SplitPatternForTest = splitPattern

// The SLO and metric helpers the external tests exercise directly; users
// reach them through WithSLO and BenchWorkload.
var (
	CheckSLOs    = checkSLOs
	PayloadStats = payloadStats
	ReportStats  = reportStats
)
