// Package cli implements the benchserve command (see Main), kept out of
// package main so that tests run it in-process.
//
// The default command is bench-serve, the reference's `vllm-mlx
// bench-serve` (reference: create_parser's bench-serve parser and
// bench_serve_command): a declarative workload run with --workload, else a
// prompt sweep. Subcommands are listed in commands.go.
package cli
