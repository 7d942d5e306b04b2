package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/benchserve/benchserve/internal/present"
)

// Option configures a Reporter (see New).
type Option func(*Reporter)

// WithClock replaces time.Now as the Reporter's clock, for tests that
// need fixed elapsed times and ETAs.
func WithClock(now func() time.Time) Option {
	return func(r *Reporter) { r.now = now }
}

// WithTerminal forces the live one-line mode (true) or the plain
// line-per-case mode (false), overriding the detection New makes.
func WithTerminal(live bool) Option {
	return func(r *Reporter) { r.live = live }
}

// WithWidth sets the terminal width in columns the live line is cut to
// (default: the terminal's width when w is a terminal, else 80).
func WithWidth(cols int) Option {
	return func(r *Reporter) { r.width = cols }
}

// WithPrefix sets the text each line starts with (default "benchserve").
func WithPrefix(prefix string) Option {
	return func(r *Reporter) { r.prefix = prefix }
}

// Reporter prints the progress of a run of total cases to w. In a
// terminal it redraws one line in place with a carriage return:
//
//	benchserve [=========>          ]  3/7  43%  elapsed 1.2s  eta 1.6s  FAIL greet
//
// and otherwise (CI logs, files, pipes) it prints one plain line per case:
//
//	benchserve: 3/7 FAIL greet (elapsed 1.2s, eta 1.6s)
//
// Finish prints the final tally. The ETA is the mean time per finished
// case times the cases left; it is omitted until a case is done and when
// total is unknown (0). A Reporter is safe for concurrent use; write errors
// are ignored (progress must never fail a run). A nil *Reporter is valid
// and does nothing, so callers need no checks.
type Reporter struct {
	mu       sync.Mutex
	w        io.Writer
	total    int
	done     int
	failed   int
	start    time.Time
	now      func() time.Time
	live     bool
	width    int
	prefix   string
	drawn    bool
	finished bool
}

// New returns a Reporter for total cases writing to w, its clock started.
// The live mode is chosen when w is an *os.File on a terminal
// (golang.org/x/term.IsTerminal); options override the detection, the
// clock, the width and the prefix. total <= 0 means unknown: no
// percentage and no ETA.
func New(w io.Writer, total int, opts ...Option) *Reporter {
	r := &Reporter{w: w, total: max(total, 0), now: time.Now, width: 80, prefix: "benchserve"}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		r.live = true
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			r.width = cols
		}
	}
	for _, o := range opts {
		o(r)
	}
	r.start = r.now()
	return r
}

// Done records one finished case: label names it (a case id, "greet/rep=1"),
// ok whether it passed. It redraws the live line or prints a plain line;
// the label is shown escaped and cut (present.Name), as the line draws
// with terminal controls of its own and its writer passes them.
// Calls after Finish are ignored.
func (r *Reporter) Done(label string, ok bool) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	label = present.Name(label)
	r.done++
	if !ok {
		r.failed++
	}
	elapsed := r.now().Sub(r.start)
	verdict := "ok"
	if !ok {
		verdict = "FAIL"
	}
	if r.live {
		r.drawLive(elapsed, verdict+" "+label)
		return
	}
	fmt.Fprintf(r.w, "%s: %s %s %s (%s)\n", r.prefix, r.count(), verdict, label, r.timing(elapsed, ", "))
}

// Finish prints the final tally ("benchserve: done 7/7 cases, 1 failed,
// in 2.9s") on its own line, ending the live line first. Only the first
// call prints.
func (r *Reporter) Finish() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	r.finished = true
	elapsed := r.now().Sub(r.start)
	if r.live && r.drawn {
		fmt.Fprint(r.w, "\r\x1b[K")
	}
	of := ""
	if r.total > 0 {
		of = fmt.Sprintf("/%d", r.total)
	}
	fmt.Fprintf(r.w, "%s: done %d%s cases, %d failed, in %s\n", r.prefix, r.done, of, r.failed, fmtDuration(elapsed))
}

// count is "3/7" or "3" when total is unknown.
func (r *Reporter) count() string {
	if r.total > 0 {
		w := len(fmt.Sprint(r.total))
		return fmt.Sprintf("%*d/%d", w, r.done, r.total)
	}
	return fmt.Sprint(r.done)
}

// timing is "elapsed 1.2s" plus sep and "eta 1.6s" when it can be estimated.
func (r *Reporter) timing(elapsed time.Duration, sep string) string {
	s := "elapsed " + fmtDuration(elapsed)
	if eta, ok := r.eta(elapsed); ok {
		s += sep + "eta " + fmtDuration(eta)
	}
	return s
}

func (r *Reporter) eta(elapsed time.Duration) (time.Duration, bool) {
	if r.total <= 0 || r.done == 0 {
		return 0, false
	}
	left := max(r.total-r.done, 0)
	return time.Duration(float64(elapsed) / float64(r.done) * float64(left)), true
}

const barWidth = 20

// drawLive redraws the terminal line: bar, count, percent, times, last case.
func (r *Reporter) drawLive(elapsed time.Duration, last string) {
	var b strings.Builder
	b.WriteString(r.prefix)
	if r.total > 0 {
		filled := min(barWidth, r.done*barWidth/r.total)
		bar := strings.Repeat("=", filled)
		if filled < barWidth {
			bar += ">" + strings.Repeat(" ", barWidth-filled-1)
		}
		fmt.Fprintf(&b, " [%s] %s %3d%%", bar, r.count(), min(100, r.done*100/r.total))
	} else {
		fmt.Fprintf(&b, " %s done", r.count())
	}
	b.WriteString("  " + r.timing(elapsed, "  ") + "  " + last)
	line := b.String()
	if r.width > 1 {
		line = present.Fit(line, r.width-1) // the label's escapes are never split
	}
	fmt.Fprint(r.w, "\r\x1b[K"+line)
	r.drawn = true
}

// fmtDuration prints durations compactly: 850ms, 1.2s, 2m05s, 1h02m.
func fmtDuration(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
