// Package progress reports the progress of a long benchmark run: a live
// line redrawn in place in a terminal (cases done/total, a bar, elapsed
// time, ETA and the last case), and plain lines, one per case, when the
// output is not a terminal, so CI logs stay readable.
//
// It is independent of the rest of benchserve: feed it a label and a
// pass/fail per finished case, e.g. from runner.RunOptions.Progress:
//
//	p := progress.New(os.Stderr, total)
//	opts.Progress = func(rec results.Record, done, total int) { p.Done(rec.CaseID, rec.OK) }
//	...
//	p.Finish()
package progress
