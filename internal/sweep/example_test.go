package sweep_test

import (
	"fmt"

	"github.com/benchserve/benchserve/internal/sweep"
)

func ExampleExpand() {
	on := true
	for _, p := range sweep.Expand([]string{"short", "long"}, []int{1, 4}, []*bool{nil, &on}, []string{""}, 1)[:4] {
		fmt.Println(sweep.Label(p))
	}
	// Output:
	// short conc=1 rep=0
	// short conc=1 rep=0 think=True
	// short conc=4 rep=0
	// short conc=4 rep=0 think=True
}
