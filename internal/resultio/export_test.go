package resultio

// Fixed payloads for the external tests (results_test), which also test
// package history on them.
var (
	FixedPayload = fixedPayload
	FixedSweep   = fixedSweep
)
