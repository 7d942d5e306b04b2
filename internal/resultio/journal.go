package resultio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/benchserve/benchserve/results"
)

// JournalVersion is the journal format version written in every header
// line (key "benchserve_journal"). ReadJournal refuses other versions.
const JournalVersion = 1

// JournalSuffix names a run's journal: JournalPath(output) is output +
// JournalSuffix, next to the output ("out.json" → "out.json.journal.jsonl").
const JournalSuffix = ".journal.jsonl"

// MaxJournalLineBytes caps one journal line ReadJournal accepts: 64 MiB,
// room for a record with 8 MiB of content (stream.DefaultMaxContentBytes)
// even when every character is escaped as \uXXXX.
const MaxJournalLineBytes = 64 << 20

// ErrBadJournal is wrapped by every ReadJournal error about the file's
// content (not a journal, unknown version, a corrupt line that is not the
// last).
var ErrBadJournal = errors.New("results: bad journal")

// JournalPath returns the journal path for an output path: output plus
// JournalSuffix. The rule is the same for every
// output format, so a user who sees out.db knows to look for
// out.db.journal.jsonl.
func JournalPath(output string) string { return output + JournalSuffix }

// JournalFor is where a run writing output journals its records:
// JournalPath(output) next to an ordinary file; for an output that is a
// device, FIFO or socket (--output /dev/null) a new name in os.TempDir()
// ("benchserve-PID-NAME.journal.jsonl"), never a file created beside a
// device in /dev; for "" (results to stdout) likewise a temp name.
func JournalFor(output string) string {
	if output != "" {
		fi, err := os.Stat(output)
		if err != nil || fi.Mode().IsRegular() {
			return JournalPath(output)
		}
	}
	name := "results"
	if output != "" {
		name = filepath.Base(output)
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("benchserve-%d-%s%s", os.Getpid(), name, JournalSuffix))
}

// JournalHeader is a journal's first line: what a Payload holds besides
// its records and summary, so that a journal alone rebuilds the payload
// (Payload). On disk it is one compact JSON object whose first key is
// "benchserve_journal" (the format version).
type JournalHeader struct {
	// Version is JournalVersion (key benchserve_journal).
	Version int `json:"benchserve_journal"`
	// RunID and Timestamp are the run's, as in Payload.
	RunID     string `json:"run_id"`
	Timestamp string `json:"timestamp"`
	// Workload is the payload's workload block (name, path, defaults,
	// repetitions).
	Workload results.WorkloadInfo `json:"workload"`
	// RequestTimeoutS is the transport timeout in seconds, null when none.
	RequestTimeoutS *float64 `json:"request_timeout_s"`
	// CacheMode is the payload's cache_policy.mode.
	CacheMode string `json:"cache_mode"`
	// Expected is how many records the run was to make (cases ×
	// repetitions; for a load run its request count, this shard's share
	// in a sharded run), 0 when unknown (a load run bounded by time).
	Expected int `json:"expected,omitempty"`
	// Sweep marks a prompt sweep's journal: besides its records it holds
	// one {"sweep_row": SweepResult} line per finished sweep point.
	Sweep bool `json:"sweep,omitempty"`
	// Schedule holds a load run's settings (mode, rates, shard,
	// burstiness, seed, cap, duration, count, goodput SLO; no measured
	// figure) and Shard the index of the shard the records come from, so
	// that a recovered shard's payload merges with the others. A load
	// run appends them as a {"load": …} line before it sends anything
	// (AppendLoad); ReadJournal puts them here. Nil for a sequential run.
	Schedule *results.Schedule `json:"schedule,omitempty"`
	Shard    *int              `json:"shard,omitempty"`

	// CacheEvents are the cache resets journaled after the header
	// (AppendCacheEvent), in order. Filled by ReadJournal; not part of the
	// header line.
	CacheEvents []results.CacheEvent `json:"-"`
	// SweepRows are the sweep rows journaled after the header
	// (AppendSweepRow), in order. Filled by ReadJournal; not part of the
	// header line.
	SweepRows []results.SweepResult `json:"-"`
	// TornBytes is the length of an incomplete last line ReadJournal
	// dropped (the write a kill interrupted), 0 when the journal ended
	// cleanly. Filled by ReadJournal.
	TornBytes int `json:"-"`
	// Skipped names the corrupt lines ReadJournalWith skipped
	// (JournalReadOptions.SkipCorrupt), e.g. "line 7: record: unexpected
	// end of JSON input"; nil when none.
	Skipped []string `json:"-"`
}

// JournalHeaderFor returns the header describing p (run id, timestamp,
// workload, transport timeout, cache mode); records and summary are not
// part of it.
func JournalHeaderFor(p *results.Payload) JournalHeader {
	return JournalHeader{
		Version:         JournalVersion,
		RunID:           p.RunID,
		Timestamp:       p.Timestamp,
		Workload:        p.Workload,
		RequestTimeoutS: p.Transport.RequestTimeoutS,
		CacheMode:       p.CachePolicy.Mode,
	}
}

// Payload rebuilds the payload of a journaled run from h and its records
// (BuildPayload: fixed notes, cache events, Summarize). Nothing is
// invented: a case that had not finished when the run stopped is absent.
//
// The payload says it is incomplete (Payload.Incomplete) and does not pass
// (summary.passed false): a run that did not finish is not a verdict.
func (h JournalHeader) Payload(records []results.Record) *results.Payload {
	p := BuildPayload(PayloadInput{
		RunID:           h.RunID,
		Timestamp:       h.Timestamp,
		Workload:        h.Workload,
		RequestTimeoutS: h.RequestTimeoutS,
		CacheMode:       h.CacheMode,
		CacheEvents:     h.CacheEvents,
		Records:         records,
	})
	p.Incomplete = &results.Incomplete{
		Reason:   "recovered from the journal of a run that did not finish: the cases that had not finished are absent",
		Records:  len(records),
		Expected: h.Expected,
	}
	if len(h.Skipped) > 0 {
		p.Incomplete.Reason += fmt.Sprintf("; %d corrupt journal lines skipped (%s)", len(h.Skipped), strings.Join(h.Skipped, "; "))
	}
	p.Summary.Passed, p.Summary.QualityPassed = false, false
	if h.Schedule != nil {
		p.Schedule = recoveredSchedule(h.Schedule, records)
	}
	return p
}

// recoveredSchedule is a recovered load run's schedule block: the
// journaled settings with the figures the records give
// (ScheduleFromRecords; late from their lag_ms). What the records cannot
// tell, requests dropped or never sent, is left 0 and a note says so.
func recoveredSchedule(settings *results.Schedule, records []results.Record) *results.Schedule {
	sc, err := ScheduleFromRecords(settings, records)
	if err != nil {
		sc = &results.Schedule{}
		*sc = *settings
		sc.AchievedRateReason = err.Error()
	}
	sc.Late = 0
	for _, r := range records {
		if r.LagMS != nil && *r.LagMS > 1 {
			sc.Late++
		}
	}
	sc.Notes = append(sc.Notes, "recovered from a journal: requests dropped or never sent before the run stopped are not counted")
	return sc
}

// Journal appends a run's records to a JSON Lines file as they finish, at
// a cost per record independent of the records before it, so that every
// finished record is on disk whatever stops the run (Ctrl-C, go test
// -timeout, SIGKILL) while the final output is written once, at the end.
//
// Format: line 1 is the JournalHeader; each later line is either one
// Record (compact JSON, the same values FormatJSON writes) or
// {"cache_event": CacheEvent}. Each line is written with one write(2) on
// a file opened with O_APPEND, so a kill leaves at most one torn line,
// the last, which ReadJournal drops. Lines reach the kernel before Append
// returns (they survive the process being killed); they are fsynced only
// by Sync and Close (an OS crash or power loss may lose the last ones).
//
// Methods are safe for concurrent use.
type Journal struct {
	mu        sync.Mutex
	f         *os.File
	path      string
	displaced string
	buf       bytes.Buffer
}

// CreateJournal creates the journal at path (see JournalPath) and writes
// h's line. An existing file at path (the journal of an earlier run that
// was stopped before it finished) is never overwritten: it is first
// renamed to the first free "<path without .jsonl>.N.jsonl" (N = 1, 2, …),
// reported by Displaced. Missing parent directories are created (as
// WriteFile does for the output). h.Version is set to JournalVersion.
// Errors name the path.
func CreateJournal(path string, h JournalHeader) (*Journal, error) {
	j := &Journal{path: path}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("results: journal %s: %w", path, err)
	}
	if _, err := os.Lstat(path); err == nil {
		moved, err := displace(path)
		if err != nil {
			return nil, fmt.Errorf("results: journal %s: keep the earlier journal: %w", path, err)
		}
		j.displaced = moved
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results: journal %s: %w", path, err)
	}
	j.f = f
	h.Version = JournalVersion
	line, err := json.Marshal(h)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("results: journal %s: header: %w", path, err)
	}
	if err := j.writeLine(line); err != nil {
		_ = f.Close()
		return nil, err
	}
	return j, nil
}

// displace moves the file at path to the first free numbered name and
// returns it.
func displace(path string) (string, error) {
	stem := strings.TrimSuffix(path, ".jsonl")
	for n := 1; n < 10000; n++ {
		dest := stem + "." + strconv.Itoa(n) + ".jsonl"
		err := os.Link(path, dest)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil { // no hard links here: rename onto a name checked free
			if _, serr := os.Lstat(dest); serr == nil {
				continue
			}
			if rerr := os.Rename(path, dest); rerr != nil {
				return "", rerr
			}
			return dest, nil
		}
		return dest, os.Remove(path)
	}
	return "", fmt.Errorf("no free name for %s", path)
}

// Path returns the journal's path.
func (j *Journal) Path() string { return j.path }

// Displaced returns where CreateJournal moved an earlier journal found
// at Path, "" when there was none. Tell the user: it holds the records of
// a run that did not finish (benchserve recover turns it into a results
// file).
func (j *Journal) Displaced() string { return j.displaced }

// Append writes r as one line. The error names the journal; after an
// error the journal may lack this record but earlier lines are intact.
func (j *Journal) Append(r results.Record) error {
	line, err := pyJSON(r, jsonOpts{})
	if err != nil {
		return fmt.Errorf("results: journal %s: record %s/%d: %w", j.path, r.CaseID, r.Repetition, err)
	}
	return j.writeLine(line)
}

// AppendCacheEvent writes ev as one {"cache_event": …} line, so that a
// recovered payload keeps the cache resets made during the run.
func (j *Journal) AppendCacheEvent(ev results.CacheEvent) error {
	line, err := json.Marshal(journalEvent{CacheEvent: &ev})
	if err != nil {
		return fmt.Errorf("results: journal %s: cache event: %w", j.path, err)
	}
	return j.writeLine(line)
}

// AppendSweepRow writes row as one {"sweep_row": …} line: the row of a
// finished sweep point, computed from the records journaled before it, so
// that a sweep stopped before its output was written keeps its rows.
func (j *Journal) AppendSweepRow(row results.SweepResult) error {
	line, err := pyJSON(journalRow{SweepRow: &row}, jsonOpts{}) // NaN (no timed decode) as null
	if err != nil {
		return fmt.Errorf("results: journal %s: sweep row: %w", j.path, err)
	}
	return j.writeLine(line)
}

type journalEvent struct {
	CacheEvent *results.CacheEvent `json:"cache_event"`
}

type journalRow struct {
	SweepRow *results.SweepResult `json:"sweep_row"`
}

// journalLoad is the {"load": …} line of a load run.
type journalLoad struct {
	Load *struct {
		Schedule *results.Schedule `json:"schedule"`
		Shard    *int              `json:"shard,omitempty"`
		Expected int               `json:"expected"`
	} `json:"load"`
}

// AppendLoad writes a load run's settings as one {"load": …} line before
// the run sends anything: sc is its schedule block with the settings
// only, shard the shard index of a sharded run (nil otherwise), expected
// the requests it is to send (0 when its duration bounds it).
// ReadJournal puts them in the header (Schedule, Shard, Expected).
func (j *Journal) AppendLoad(sc *results.Schedule, shard *int, expected int) error {
	var l journalLoad
	l.Load = &struct {
		Schedule *results.Schedule `json:"schedule"`
		Shard    *int              `json:"shard,omitempty"`
		Expected int               `json:"expected"`
	}{sc, shard, expected}
	line, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("results: journal %s: load settings: %w", j.path, err)
	}
	return j.writeLine(line)
}

// writeLine writes line + "\n" with one Write call.
func (j *Journal) writeLine(line []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return fmt.Errorf("results: journal %s: %w", j.path, os.ErrClosed)
	}
	j.buf.Reset()
	j.buf.Grow(len(line) + 1)
	j.buf.Write(line)
	j.buf.WriteByte('\n')
	if _, err := j.f.Write(j.buf.Bytes()); err != nil {
		return fmt.Errorf("results: journal %s: %w", j.path, err)
	}
	if j.buf.Cap() > 1<<20 { // do not pin one huge record's buffer
		j.buf = bytes.Buffer{}
	}
	return nil
}

// Sync fsyncs the journal (the lines then survive an OS crash too).
func (j *Journal) Sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("results: journal %s: sync: %w", j.path, err)
	}
	return nil
}

// Close fsyncs and closes the journal, which stays on disk (call it when
// the final output could not be written: the journal is then what
// remains). Closing twice is a no-op.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	serr := j.f.Sync()
	cerr := j.f.Close()
	j.f = nil
	if err := errors.Join(serr, cerr); err != nil {
		return fmt.Errorf("results: journal %s: close: %w", j.path, err)
	}
	return nil
}

// Remove closes the journal and deletes its file. Call it only after the
// final output holding every record was written successfully.
func (j *Journal) Remove() error {
	j.mu.Lock()
	if j.f != nil {
		_ = j.f.Close()
		j.f = nil
	}
	j.mu.Unlock()
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("results: journal %s: remove: %w", j.path, err)
	}
	return nil
}

// IsJournal reports whether data starts like a journal (its header
// line's first key); report.Load uses it to detect journals by content.
func IsJournal(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(data), []byte(`{"benchserve_journal"`))
}

// ReadJournal reads a journal written by Journal: its header (with
// CacheEvents and TornBytes filled in) and its records in the order they
// finished. An incomplete last line (a write cut by a kill) is dropped
// and counted in TornBytes; any other line that does not parse, a
// missing header or another format version is an error wrapping
// ErrBadJournal that names the file and line. Lines over
// MaxJournalLineBytes are an error too.
func ReadJournal(path string) (JournalHeader, []results.Record, error) {
	return ReadJournalWith(path, JournalReadOptions{})
}

// JournalReadOptions tunes ReadJournalWith. The zero value is
// ReadJournal's strictness.
type JournalReadOptions struct {
	// SkipCorrupt skips a line that does not parse (a disk error, an
	// edit) instead of refusing the journal, and names it in
	// JournalHeader.Skipped; the header line must still parse.
	SkipCorrupt bool
}

// ReadJournalWith is ReadJournal with opts.
func ReadJournalWith(path string, opts JournalReadOptions) (JournalHeader, []results.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return JournalHeader{}, nil, fmt.Errorf("results: journal: %w", err)
	}
	defer f.Close()
	return readJournal(path, f, opts)
}

func readJournal(path string, r io.Reader, opts JournalReadOptions) (JournalHeader, []results.Record, error) {
	var (
		h    JournalHeader
		recs []results.Record
	)
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: %s: line %d: %s", ErrBadJournal, path, line, fmt.Sprintf(format, args...))
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, complete, err := readLine(br)
		if err != nil {
			return h, recs, fmt.Errorf("results: journal %s: line %d: %w", path, n, err)
		}
		if line == nil {
			break
		}
		if !complete { // the last line, cut before its newline
			if n > 1 && json.Valid(line) {
				complete = true // cut exactly before the "\n": keep it
			} else if n > 1 {
				h.TornBytes = len(line)
				break
			}
		}
		if n == 1 {
			if !IsJournal(line) {
				return h, nil, bad(1, `not a benchserve journal (the first line must be the header {"benchserve_journal": …})`)
			}
			if err := json.Unmarshal(line, &h); err != nil {
				return h, nil, bad(1, "header: %v", err)
			}
			if h.Version != JournalVersion {
				return h, nil, bad(1, "journal format version %d, this benchserve reads version %d", h.Version, JournalVersion)
			}
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		corrupt := func(what string, err error) error {
			if !opts.SkipCorrupt {
				return bad(n, "%s: %v", what, err)
			}
			h.Skipped = append(h.Skipped, fmt.Sprintf("line %d: %s: %v", n, what, err))
			return nil
		}
		switch {
		case bytes.HasPrefix(line, []byte(`{"cache_event"`)):
			var ev journalEvent
			if err := json.Unmarshal(line, &ev); err != nil || ev.CacheEvent == nil {
				if err == nil {
					err = errors.New("no event")
				}
				if err := corrupt("cache event", err); err != nil {
					return h, recs, err
				}
				continue
			}
			h.CacheEvents = append(h.CacheEvents, *ev.CacheEvent)
		case bytes.HasPrefix(line, []byte(`{"load"`)):
			var l journalLoad
			if err := json.Unmarshal(line, &l); err != nil || l.Load == nil || l.Load.Schedule == nil {
				if err == nil {
					err = errors.New("no schedule")
				}
				if err := corrupt("load settings", err); err != nil {
					return h, recs, err
				}
				continue
			}
			h.Schedule, h.Shard, h.Expected = l.Load.Schedule, l.Load.Shard, l.Load.Expected
		case bytes.HasPrefix(line, []byte(`{"sweep_row"`)):
			// A null rate is NaN (no request's decode was timed), as written.
			row := results.SweepResult{TPOTms: math.NaN(), GenTPS: math.NaN()}
			jr := journalRow{SweepRow: &row}
			if err := json.Unmarshal(line, &jr); err != nil || jr.SweepRow == nil {
				if err == nil {
					err = errors.New("no row")
				}
				if err := corrupt("sweep row", err); err != nil {
					return h, recs, err
				}
				continue
			}
			h.SweepRows = append(h.SweepRows, *jr.SweepRow)
		default:
			var rec results.Record
			if err := json.Unmarshal(line, &rec); err != nil {
				if err := corrupt("record", err); err != nil {
					return h, recs, err
				}
				continue
			}
			recs = append(recs, rec)
		}
	}
	if h.Version == 0 {
		return h, nil, fmt.Errorf("%w: %s: empty file, no header", ErrBadJournal, path)
	}
	return h, recs, nil
}

// readLine returns the next line without its "\n" and whether it had
// one; nil at the end of input.
func readLine(br *bufio.Reader) ([]byte, bool, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > MaxJournalLineBytes {
			return nil, false, fmt.Errorf("line longer than %d bytes", MaxJournalLineBytes)
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			return line[:len(line)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(line) == 0 {
				return nil, false, nil
			}
			return line, false, nil
		default:
			return nil, false, err
		}
	}
}

// ReadJournalPayload is ReadJournal followed by JournalHeader.Payload:
// the payload of the journaled run with the records that finished.
func ReadJournalPayload(path string) (*results.Payload, error) {
	h, recs, err := ReadJournal(path)
	if err != nil {
		return nil, err
	}
	return h.Payload(recs), nil
}
