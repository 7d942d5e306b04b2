package cli

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	"github.com/benchserve/benchserve/internal/resultio"
)

// input is one argument of compare as the duplicate check sees it: its
// file, the run id it picks (FILE:RUN_ID) and its content's digest.
type input struct {
	arg, path, runID string
	side             string // "base" or "candidate"
	digest           [sha256.Size]byte
	read             bool // digest holds the file's SHA-256
}

func newInput(arg, side string) input {
	expandHome(&arg)
	in := input{arg: arg, side: side}
	in.path, in.runID = splitRunID(arg)
	if f, err := os.Open(in.path); err == nil {
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			copy(in.digest[:], h.Sum(nil))
			in.read = true
		}
		f.Close()
	}
	return in
}

// sameAs reports whether a and b are one input: the same run id of the
// same file (path, link) or of files of the same content; how says which.
func (a input) sameAs(b input) (same bool, how string) {
	if a.runID != b.runID {
		return false, ""
	}
	if resultio.SameFile(a.path, b.path) {
		return true, "path"
	}
	if a.read && b.read && a.digest == b.digest {
		return true, "content"
	}
	return false, ""
}

// duplicateInputs looks for a file given twice, by path or by content
// (benchserve compare's arguments, base's then candidate's). Each
// duplicate is a warning line: twice on one side, its requests are
// pooled twice (their count, and so the intervals' confidence,
// overstated); on both sides, the sides share those runs and look alike.
// When the candidate is the base (every candidate input is one of the
// base and the other way round), the comparison is meaningless (it says
// "no regression" whatever the server did): an error, exit 2.
func duplicateInputs(baseArgs, candArgs []string) (warnings []string, err error) {
	var ins []input
	for _, a := range baseArgs {
		ins = append(ins, newInput(a, "base"))
	}
	for _, a := range candArgs {
		ins = append(ins, newInput(a, "candidate"))
	}
	matched := make([]bool, len(ins)) // has a twin on the other side
	for i := range ins {
		for j := i + 1; j < len(ins); j++ {
			same, how := ins[i].sameAs(ins[j])
			if !same {
				continue
			}
			where := "twice on the " + ins[i].side + " side (its requests count twice)"
			if ins[i].side != ins[j].side {
				where = "on both sides"
				matched[i], matched[j] = true, true
			}
			if how == "path" {
				warnings = append(warnings, fmt.Sprintf("%s is given %s", ins[j].arg, where))
			} else {
				warnings = append(warnings, fmt.Sprintf("%s and %s hold the same content, given %s", ins[i].arg, ins[j].arg, where))
			}
		}
	}
	for _, m := range matched {
		if !m {
			return warnings, nil
		}
	}
	return nil, fmt.Errorf("the candidate is the base: %s is given on both sides (the same file or the same content): "+
		"the comparison would say no regression whatever the server did; give the candidate's own results", ins[len(ins)-1].arg)
}
