// Package workloads loads declarative benchmark workloads: JSON files of
// chat cases with request settings and quality checks (reference:
// bench_serve.load_workload and its helpers).
//
// Load and Parse return a fully resolved *Workload: every case has its
// messages (inline or from a request file), its max_tokens /
// enable_thinking / policy_timeout_ms resolved by precedence (case, then
// request file, then defaults), its extra body composed, and its checks
// merged with the defaults and parsed into a *checks.Spec. Inputs the
// reference accepts keep its meaning (a numeric id is str() of it, a falsy
// max_tokens means the default, ...) and are listed in Workload.Warnings.
// Loading is strict where the reference would misbehave: unknown keys,
// wrong types and duplicate ids are errors, and all problems of a file are
// reported at once in a *LoadError whose entries are *FieldError naming
// file, case and field:
//
//	workload: load workloads/examples/smoke.json: 2 problems:
//	workloads/examples/smoke.json: defaults.max_token: unknown key (did you mean "max_tokens"?)
//	workloads/examples/smoke.json: case "greet": checks.min_chars: want an integer >= 0, got "x"
//
// A loaded Workload is read-only and safe to share between goroutines.
package workloads
