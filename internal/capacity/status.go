package capacity

import "github.com/benchserve/benchserve/internal/stats"

// How a search ended (results.Capacity.Status).
const (
	// StatusFound: the capacity lies between the highest passing and the
	// lowest failing load, within Precision.
	StatusFound = "found"
	// StatusMaxReached: the probe at Config.Max passed; the capacity is
	// at least Max.
	StatusMaxReached = "max_reached"
	// StatusFirstFailed: the first probe (at Config.Start) failed; the
	// capacity is below Start and reported as 0.
	StatusFirstFailed = "first_probe_failed"
	// StatusTimeCap: Config.MaxTime passed before the search converged;
	// the capacity is the highest load that passed (a lower bound), 0
	// when none had.
	StatusTimeCap = "time_cap"
	// StatusStopped: the caller's context ended or a probe returned an
	// error; the capacity is the highest load that passed so far.
	StatusStopped = "stopped"
	// StatusBudgetSpent (fitsearch.go) and StatusClientLimited
	// (client.go) end the searches those files hold.
)

// MethodBracket names how results.Capacity.Interval is found.
const MethodBracket = stats.MethodBracket
