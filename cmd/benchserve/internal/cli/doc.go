// Package cli implements the benchserve command (see Main), kept out of
// package main so that tests run it in-process.
//
// The default command is bench-serve, the reference's `vllm-mlx
// bench-serve` (reference: create_parser's bench-serve parser and
// bench_serve_command): a declarative workload run with --workload, else a
// prompt sweep. Subcommands (report, fixture, version) are listed in the
// table in commands.go, from which --help's usage lines are generated.
//
// Before anything is sent, every problem with the flags (--url is
// normalized, --slo parsed, --case-tag matched), the inputs and --output
// is reported at once (exit 2). After a workload run the run-level
// thresholds (defaults.slo and --slo) gate the exit status; results that
// cannot be written to --output are kept as JSON in a .partial.json file.
// ../../REFERENCE.md lists every departure from the reference.
package cli
