package workloads_test

import (
	"fmt"

	"github.com/benchserve/benchserve/workloads"
)

// The builtin suite is an ordinary workload whose cases are contracts.
func ExampleConformance() {
	w, err := workloads.Conformance()
	if err != nil {
		panic(err)
	}
	c := w.Cases[0]
	fmt.Println(len(w.Cases), "contracts; the first:", c.ID, c.Protocol.Level, c.Protocol.Check)
	rule, _ := c.Protocol.Rule()
	fmt.Println(rule)
	// Output:
	// 51 contracts; the first: stream.framing MUST stream_framing
	// a stream is data: events of JSON chat.completion.chunk objects ending with data: [DONE]
}
