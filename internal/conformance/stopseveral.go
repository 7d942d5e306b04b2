package conformance

import (
	"fmt"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
)

// stopSeveral judges limits.stop_several as stopSequence judges
// limits.stop, with every stop string of the list: none is in the
// content (a server that honours only the first, or only one, writes the
// earlier ones) and the answer ends with finish_reason "stop".
func (r *contractRun) stopSeveral(st *streamed) Outcome {
	o := r.stopSequence(st)
	if o.Verdict != contract.Pass {
		return o
	}
	stops := contract.StopStrings(r.in.ExtraBody["stop"])
	q := make([]string, len(stops))
	for i, s := range stops {
		q[i] = fmt.Sprintf("%q", s)
	}
	return pass(`content stops before the earliest of %s (none in it), finish_reason "stop"`, strings.Join(q, ", "))
}
