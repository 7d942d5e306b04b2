// Package checks ports the bench_serve quality checks: the basic response
// validation (validate_response) and the declarative per-case checks of a
// workload (validate_quality_checks and its _check_* helpers).
//
// A workload's checks object is parsed once with ParseSpec, which validates
// every value and compiles every regex (Python re syntax translated to Go
// RE2 by compilePattern), so a bad workload fails at load time. Evaluate is
// then a pure function from a Spec and a Response to the list of failed
// checks, whose messages are byte-for-byte the reference's issue strings
// (Python repr formatting included), so results payloads stay comparable.
//
// MergeRaw applies the reference's defaults-then-case merge to raw checks
// objects before parsing.
//
// Nothing here touches the network or a testing.TB; package benchtest turns
// Issues into test failures. All functions are safe for concurrent use; a
// Spec is read-only after ParseSpec.
package checks
