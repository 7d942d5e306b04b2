package loadgen

import (
	"runtime"
	"time"
)

// clientUse is a snapshot of the client process's own costs: the CPU it
// has used (user + system) and the garbage collector's pauses. Two
// snapshots bracket a run, so Run says whether the client, not the
// server, set the pace.
type clientUse struct {
	at      time.Time
	cpu     time.Duration
	cpuOK   bool
	pause   time.Duration
	numGC   uint32
	pauseNs [256]uint64
}

// useNow takes the snapshot. ReadMemStats stops the world for a moment;
// it runs twice per run, never per request.
func useNow() clientUse {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	cpu, ok := processCPU()
	return clientUse{at: time.Now(), cpu: cpu, cpuOK: ok, pause: time.Duration(ms.PauseTotalNs), numGC: ms.NumGC, pauseNs: ms.PauseNs}
}

// clientCost is what the client spent between two snapshots.
type clientCost struct {
	CPU            time.Duration
	CPUOK          bool
	Wall           time.Duration
	Procs          int
	GCPause, GCMax time.Duration
	GCs            int
}

// costSince is the cost from start to end: CPU, wall time and
// GOMAXPROCS, the total GC pause, and the longest pause among the last
// 256 collections (the runtime keeps no more).
func costSince(start, end clientUse) clientCost {
	c := clientCost{CPU: end.cpu - start.cpu, CPUOK: start.cpuOK && end.cpuOK, Wall: end.at.Sub(start.at),
		Procs: runtime.GOMAXPROCS(0), GCPause: end.pause - start.pause, GCs: int(end.numGC - start.numGC)}
	for k := 0; k < min(c.GCs, len(end.pauseNs)); k++ {
		p := time.Duration(end.pauseNs[(int(end.numGC)-1-k+len(end.pauseNs))%len(end.pauseNs)])
		c.GCMax = max(c.GCMax, p)
	}
	return c
}
