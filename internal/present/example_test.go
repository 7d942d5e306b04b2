package present_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/benchserve/benchserve/internal/present"
)

func Example() {
	model := "llama\x1b]0;pwned\x07\u202e" + strings.Repeat("x", 200)
	w := present.NewWriter(os.Stdout, nil)
	fmt.Fprintf(w, "model %s\n", present.Name(model))
	// Output:
	// model llama\x1b]0;pwned\a\u202exxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…(+125 bytes)
}
