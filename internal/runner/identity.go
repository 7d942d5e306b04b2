package runner

import (
	"crypto/rand"
	"encoding/hex"
)

// newRunID returns a fresh 8-character lowercase hex run id, the shape of
// the reference's str(uuid.uuid4())[:8]: a run's identity is the
// engine's (Config.RunID gives the shards of one run the same one), and
// with its start time (Runner.Timestamp) stamped on every record.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
