//go:build !unix

package loadgen

import "time"

// processCPU is not measured off unix: the client's CPU share is then
// null, never a guess.
func processCPU() (time.Duration, bool) { return 0, false }
