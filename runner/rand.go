package runner

import "crypto/rand"

// randReader is the entropy source for run ids.
var randReader = rand.Reader
