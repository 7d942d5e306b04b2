package workloads

import (
	_ "embed"
)

// conformanceJSON is workloads/conformance.json, the builtin suite of
// protocol contracts (one case per contract, each with a "protocol"
// object). Copy the file to extend the suite: it is an ordinary workload file.
//
//go:embed conformance.json
var conformanceJSON []byte

// ConformancePath is the name the builtin suite is parsed under (error
// messages and the payload's workload.path).
const ConformancePath = "workloads/conformance.json"

// Conformance parses the builtin suite. It fails only if the shipped file
// is broken, which TestConformanceSuiteParses guards.
func Conformance() (*Workload, error) {
	return Parse(conformanceJSON, ConformancePath)
}
