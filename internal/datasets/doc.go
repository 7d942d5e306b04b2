// Package datasets generates the workloads the field benchmarks with
// (issue 27): requests of controlled input and output lengths (random),
// groups sharing a prefix (prefix_repetition), and conversation files
// (ShareGPT JSON, OpenAI-messages JSONL), each a Generator: a streamed,
// deterministic source of Requests. The same seed gives the same
// requests, byte for byte, and a generator holds one request at a time,
// so a million never sit in memory.
//
// Prompts of N tokens are built from single-token words (Prompter): a
// list of common English words each of which is one token, with or without
// its leading space, in o200k_base and cl100k_base and in the fixture's
// tokenizer, so a text of N words is N tokens and texts joined with a
// space add up. Where a server counts differently, package tokens
// measures it (tokens.Calibrator) and CalibratedPrompter builds texts
// from the words as that server counts them, Overhead tokens short of the
// prompt for its chat template.
//
// Generators are named (Register, New) so every door builds them the one
// way: the CLI's --dataset-name and the workload file's "generator"
// object both give Options. Request.Case turns a request into the
// workload case the engine (package runner) sends and records.
package datasets
