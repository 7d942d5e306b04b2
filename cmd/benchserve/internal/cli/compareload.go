package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/benchserve/benchserve/internal/compare"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

// The kinds of results compare reads, as its errors name them.
const (
	kindWorkload    = "a workload payload"
	kindConformance = "a conformance result"
	kindSweep       = "a prompt sweep"
	kindCapacity    = "a capacity result"
)

// sideRuns are one side's inputs, all of one kind.
type sideRuns struct {
	kind       string
	files      []string // the arguments, as given
	workloads  []compare.Run
	sweeps     []compare.SweepRun
	capacities []compare.CapacityRun
}

// loadSide reads a side's arguments with report.Load (which detects the
// kind by content). An argument FILE:RUN_ID that is not itself a file
// picks the runs of that run id from FILE (a SQLite history, or a
// sweep file of several runs). Every file of a side must be of one kind.
func loadSide(args []string) (*sideRuns, error) {
	s := &sideRuns{}
	var kinds []string
	for _, arg := range args {
		expandHome(&arg)
		path, runID := splitRunID(arg)
		rs, err := report.Load(path)
		if err != nil {
			return nil, err
		}
		if runID != "" {
			rs, err = pickRun(path, runID, rs)
			if err != nil {
				return nil, err
			}
		}
		history := isSQLite(path)
		for _, r := range rs {
			label := arg
			if runID == "" && len(rs) > 1 {
				label = path + ":" + runIDOf(r)
			}
			kind := kindWorkload
			switch {
			case r.Payload != nil:
				if onlyContracts(r.Payload) {
					kind = kindConformance
				}
				s.workloads = append(s.workloads, compare.Run{Label: label, Payload: r.Payload, History: history})
			case r.Capacity != nil:
				kind = kindCapacity
				s.capacities = append(s.capacities, compare.CapacityRun{Label: label, Capacity: r.Capacity})
			default:
				kind = kindSweep
				s.sweeps = append(s.sweeps, compare.SweepRun{Label: label, Rows: r.Sweep})
			}
			s.files, kinds = append(s.files, label), append(kinds, kind)
		}
	}
	if len(kinds) > 0 {
		s.kind = kinds[0]
	}
	for i, k := range kinds {
		if k != s.kind {
			return nil, fmt.Errorf("files of different kinds: %s is %s, %s is %s: compare compares results of one kind", s.files[0], s.kind, s.files[i], k)
		}
	}
	return s, nil
}

// sameKind refuses sides of different kinds, naming a file of each.
func sameKind(b, c *sideRuns) error {
	if b.kind != c.kind {
		return fmt.Errorf("files of different kinds: %s is %s, %s is %s: compare compares results of one kind", b.files[0], b.kind, c.files[0], c.kind)
	}
	return nil
}

// splitRunID splits "history.db:RUN_ID" when arg is not itself a file
// and its part before the last ":" is; else it returns arg whole.
func splitRunID(arg string) (path, runID string) {
	if _, err := os.Stat(arg); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return arg, ""
	}
	i := strings.LastIndexByte(arg, ':')
	if i <= 0 || i == len(arg)-1 {
		return arg, ""
	}
	if fi, err := os.Stat(arg[:i]); err == nil && fi.Mode().IsRegular() {
		return arg[:i], arg[i+1:]
	}
	return arg, ""
}

// pickRun keeps the runs of runID (labelled "<file>:<run id>"); none is
// an error listing the file's run ids.
func pickRun(path, runID string, rs []report.Run) ([]report.Run, error) {
	var out []report.Run
	var ids []string
	for _, r := range rs {
		id := runIDOf(r)
		if id == runID {
			out = append(out, r)
		}
		ids = append(ids, id)
	}
	if len(out) == 0 {
		if len(ids) > 10 {
			ids = append(ids[:10:10], fmt.Sprintf("and %d more", len(ids)-10))
		}
		return nil, fmt.Errorf("%s: run_id %q: no such run (the file holds %s)", path, runID, strings.Join(ids, ", "))
	}
	return out, nil
}

func runIDOf(r report.Run) string {
	switch {
	case r.Payload != nil:
		return r.Payload.RunID
	case len(r.Sweep) > 0:
		return r.Sweep[0].RunID
	}
	return ""
}

// isSQLite reports whether path starts with the SQLite header.
func isSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte("SQLite format 3\x00"))
}

// onlyContracts reports whether every record of p judges a protocol
// contract (benchserve conformance --output): such a payload compares by
// its verdicts, never pooled with a workload's latencies.
func onlyContracts(p *results.Payload) bool {
	for _, r := range p.Results {
		if r.Contract == nil {
			return false
		}
	}
	return len(p.Results) > 0
}
