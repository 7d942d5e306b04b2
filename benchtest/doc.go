// Package benchtest is benchserve's go test plugin: it turns a declarative
// workload file into subtests (RunWorkload) and benchmarks (BenchWorkload)
// against any OpenAI-compatible server, or against the embedded fixture
// server when no URL is given.
//
//	func TestWorkload(t *testing.T) {
//		benchtest.RunWorkload(t, "workloads/examples/smoke.json")
//	}
//
// Run it with `go test -run Workload -v`; point it at a real server with
// BENCHSERVE_URL=http://127.0.0.1:8080 (and BENCHSERVE_MODEL when the
// server lists several models). Each case is one subtest, so CI tools that
// read go test's output (gotestsum --junitfile) show one test case per
// workload case, and `-run 'TestWorkload/^greet$'` reruns one case.
//
// RunConformance checks the server's protocol against the builtin
// contract suite (workloads/conformance.json), one subtest per contract:
//
//	func TestConformance(t *testing.T) { benchtest.RunConformance(t) }
package benchtest
