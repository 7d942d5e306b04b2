// Command benchserve benchmarks and qualifies OpenAI-compatible chat
// completion servers. It is a drop-in for `vllm-mlx bench-serve`: the same
// flags, inputs and outputs. Run `benchserve --help` for usage.
package main

import (
	"os"

	"github.com/benchserve/benchserve/cmd/benchserve/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
