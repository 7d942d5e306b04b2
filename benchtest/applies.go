package benchtest

import (
	"slices"
	"strings"
	"testing"
)

// Door names, as the refusals print them.
const (
	doorRunWorkload    = "RunWorkload"
	doorRunConformance = "RunConformance"
	doorBenchWorkload  = "BenchWorkload"
	doorBenchSweep     = "BenchSweep"
	doorSearchCapacity = "SearchCapacity"
)

// appliesTo lists, for the options a door could silently ignore, the
// doors that read them. An option missing here applies to every door.
var appliesTo = map[string][]string{
	"WithOutput":            {doorRunWorkload, doorRunConformance},
	"WithReport":            {doorRunWorkload, doorRunConformance},
	"Baseline":              {doorRunWorkload, doorRunConformance},
	"OnRecord":              {doorRunWorkload, doorRunConformance},
	"ConformanceStrict":     {doorRunConformance, doorRunWorkload},
	"WithConcurrencyLevels": {doorBenchWorkload, doorBenchSweep},
	"WithGoodput":           {doorBenchWorkload, doorBenchSweep, doorSearchCapacity},
	"WithCachePolicy":       {doorRunWorkload, doorRunConformance},
	"WithRepetitions":       {doorRunWorkload, doorRunConformance, doorBenchWorkload},
}

// given records that the option name was passed, for refuseInapplicable.
func (c *config) given(name string) { c.passed = append(c.passed, name) }

// refuseInapplicable fails t when an option was passed to a door that
// does not read it (the Option contract: fail, never ignore). extra adds
// door-specific refusals (option → why), checked first.
func refuseInapplicable(t testing.TB, cfg config, door string, extra map[string]string) {
	t.Helper()
	for _, name := range cfg.passed {
		if why, ok := extra[name]; ok {
			say(t).Fatalf("benchtest: %s does not apply to %s: %s", name, door, why)
		}
		if doors, ok := appliesTo[name]; ok && !slices.Contains(doors, door) {
			say(t).Fatalf("benchtest: %s does not apply to %s; it applies to %s", name, door, strings.Join(doors, ", "))
		}
	}
}
