package cli

import "github.com/benchserve/benchserve/internal/datasets"

// The sessions generator's flags (--dataset-name sessions) join the
// dataset flags; each sets the parameter of its name with underscores.
func init() {
	datasetIntFlags = append(datasetIntFlags,
		[2]string{"sessions-turns", "sessions: `turns` per session, each sent after the previous answer (default 3)"},
		[2]string{"sessions-input-len", "sessions: `tokens` of each turn's new user message (default 256)"},
		[2]string{"sessions-output-len", "sessions: output `tokens` per turn, sent as max_tokens (default 128)"},
		[2]string{"sessions-think-time-ms", "sessions: `ms` between a turn's answer and the session's next turn (default 0)"})
}

// sessionFlags are the flags only a sessions run takes.
var sessionFlags = []string{"sessions-turns", "sessions-input-len", "sessions-output-len", "sessions-think-time-ms"}

// isSessions reports whether --dataset-name names the multi-turn
// generator, whose turns are built as the answers arrive (runner: a
// closed loop of --max-concurrency sessions; --num-prompts counts
// sessions).
func (d *datasetFlags) isSessions() bool { return d.name == datasets.SessionsName }

// checkSessions adds to pr the flags that do not go with d: a sessions
// flag without sessions, and for sessions the arrival flags (sessions run
// as a closed loop) and sharding.
func (f *benchFlags) checkSessions(pr *problems) {
	if !f.dataset.isSessions() {
		for _, name := range sessionFlags {
			if f.given(name) && f.dataset.set() {
				pr.addUsage("--%s applies to --dataset-name sessions", name)
			}
		}
		return
	}
	for _, name := range []string{"request-rate", "burstiness", "mix", "shard"} {
		if f.given(name) {
			pr.addUsage("--%s does not apply to sessions: they run as a closed loop of --max-concurrency sessions, each turn sent after the previous answer", name)
		}
	}
}

// checkSessionsCapacity refuses sessions as a capacity search's mix: a
// capacity search sets the arrival rate, sessions send on answers.
func (f *capacityFlags) checkSessionsCapacity(pr *problems) bool {
	if !f.dataset.isSessions() {
		return true
	}
	pr.addUsage("--dataset-name sessions: a session sends each turn after the previous answer, and a capacity search sets the rate: run it with bench-serve --max-concurrency")
	return false
}
