package benchtest_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/workloads"
)

// A user's test runs a workload in one line, in a _test.go file:
//
//	func TestWorkload(t *testing.T) {
//		benchtest.RunWorkload(t, "testdata/mixed.json", opts...)
//	}
//
// Here are such options, and the workload that line would run, loaded as
// RunWorkload loads it: each case becomes a subtest (TestWorkload/passes,
// TestWorkload/too-short) that passes when its checks hold.
func Example() {
	opts := []benchtest.Option{
		benchtest.WithRepetitions(3),                      // every case 3 times
		benchtest.WithConcurrency(2),                      // up to 2 requests in flight
		benchtest.WithRequestTimeout(30 * time.Second),    // each request's deadline
		benchtest.WithSLO("ttft_p95_ms <= 500"),           // checked after the run, as subtest slo/<threshold>
		benchtest.WithFixture(fixtures.Options{Slots: 4}), // the embedded server, when BENCHSERVE_URL is unset
	}
	w, err := workloads.Load("testdata/mixed.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d options; workload %q: %s\n", len(opts), w.Name, w.Description)
	for _, c := range w.Cases {
		fmt.Printf("  %s [%s] max_tokens %d, checks %v\n", c.ID, strings.Join(c.Tags, ","), *c.MaxTokens, c.Checks != nil)
	}
	// Output:
	// 5 options; workload "mixed": One case that passes on the fixture and one whose check cannot pass.
	//   passes [good] max_tokens 100, checks true
	//   too-short [bad] max_tokens 100, checks true
}
