package capacity

import (
	"fmt"
	"strings"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// VerdictInvalid: the probe's client could not keep up (clientLimited):
// its figures measure the client, not the server, so the probe neither
// passes nor fails and the search stops (StatusClientLimited).
const VerdictInvalid = "invalid"

// StatusClientLimited: a probe's client could not keep up with its load
// (its schedule lag p99 or its CPU past Config.Client), so the search
// stopped there: the capacity is the highest load that passed below it,
// a lower bound set by the client, not by the server.
const StatusClientLimited = "client_limited"

// clientLimited reports why probe p's client could not keep up ("" when
// it could), by lim (runner.ClientLimits, as a load run is judged): a
// rate probe whose schedule lag p99 is past lim.LagLimitMS of its rate
// (the probe at 1,024 req/s of a 2-core client ran at 312, every request
// late, and was taken for a pass), or any probe whose client used
// lim.CPUUtil of its CPU or more.
func clientLimited(p results.CapacityProbe, run *loadgen.Run, lim runner.ClientLimits) string {
	var bad []string
	if lag := p.Summary.LagP99ms; p.By != ByConcurrency && lag != nil && p.Load > 0 {
		if limit := lim.LagLimitMS(p.Load); *lag > limit {
			what := fmt.Sprintf("lag p99 %.1f ms > %.1f ms", *lag, limit)
			if a := achieved(p); a > 0 {
				what += fmt.Sprintf(" (sent at %.2f req/s of %s asked)", a, stats.FormatLoad(p.Load))
			}
			bad = append(bad, what)
		}
	}
	if util, ok := run.ClientUtil(); ok && util >= lim.CPUUtil {
		bad = append(bad, fmt.Sprintf("client CPU %.0f%% ≥ %.0f%%", 100*util, 100*lim.CPUUtil))
	}
	if len(bad) == 0 {
		return ""
	}
	return "client could not keep up: " + strings.Join(bad, "; ")
}
