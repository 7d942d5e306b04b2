package metrics

import (
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/stretchr/testify/require"
)

// TestExpositionSnapshot snapshots the whole exposition after the known
// sequence of events (fixed durations from the fake clock) with fixed
// engine, MCP and model-registry stats.
func TestExpositionSnapshot(t *testing.T) {
	c, clk := enabledCollector()
	recordKnownSequence(c, clk)
	c.SetModelRegistry(registryFake{"total_entries": 2, "active_owners": 1})
	body, _, err := c.Render(fixedEngine(), mcpFake{states: []string{"connected", "disconnected"}, tools: 6})
	require.NoError(t, err, "render")
	snaps.MatchSnapshot(t, string(body))
}
