package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/benchserve/benchserve/internal/traces"
	"github.com/benchserve/benchserve/results"
)

// The trace generators' parameters.
const (
	// ParamTraceScale multiplies a trace's timestamps into send offsets
	// (--trace-scale): 1 replays at the trace's pace, 0.5 twice as fast,
	// 2 at half speed. Default 1.
	ParamTraceScale = "trace_scale"
	// ParamTraceBlockSize is the tokens per Mooncake hash id
	// (--trace-block-size). Default traces.DefaultBlockSize (512).
	ParamTraceBlockSize = "trace_block_size"
)

func init() {
	for _, name := range traces.Formats {
		Register(name, func(o Options) (Generator, error) { return newTrace(name, o, nil) })
	}
}

// trace is the "mooncake" and "azure" generator: a timestamped trace file
// (package traces) replayed line by line, each request sent at its
// timestamp × trace_scale (Timed) with the trace's input and output
// lengths. A Mooncake line's prompt is one Prompter.Block of
// trace_block_size tokens per hash id (the id mixed with the seed), so
// equal ids give byte-identical blocks and a shared run of ids a shared
// prefix, then its own words for the tokens past the blocks; PrefixTokens
// is the reuse the trace was built to have (traces.Reuse). An Azure line
// has no ids: its prompt is all its own.
type trace struct {
	spec   Spec
	format string
	p      *Prompter
	scale  float64
	block  int
	open   func() (io.ReadCloser, error)
}

// NewTrace returns the trace generator of format ("mooncake", "azure")
// reading the trace from open instead of o.Path (which then only names it
// in errors and the payload): a trace generated on the fly, or piped in.
// Each Requests and Scan call opens it anew.
func NewTrace(format string, o Options, open func() (io.ReadCloser, error)) (Generator, error) {
	if o.Prompter == nil {
		o.Prompter = NewPrompter()
	}
	if !slices.Contains(traces.Formats, format) {
		return nil, fmt.Errorf("datasets: trace format %q: want one of %v", format, traces.Formats)
	}
	return newTrace(format, o, open)
}

func newTrace(format string, o Options, open func() (io.ReadCloser, error)) (Generator, error) {
	if err := o.Check(ParamTraceScale, ParamTraceBlockSize); err != nil {
		return nil, err
	}
	if o.Path == "" && open == nil {
		return nil, fmt.Errorf("datasets: %s: no trace file: give --dataset-path (the workload generator's \"path\")", format)
	}
	scale, err := o.Float(ParamTraceScale, 1)
	if err != nil {
		return nil, err
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, fmt.Errorf("datasets: %s: %s %v: want a factor > 0 (1: the trace's pace)", format, ParamTraceScale, scale)
	}
	block, err := o.Int(ParamTraceBlockSize, traces.DefaultBlockSize)
	if err != nil {
		return nil, err
	}
	if block < 1 {
		return nil, fmt.Errorf("datasets: %s: %s %d: want >= 1 token", format, ParamTraceBlockSize, block)
	}
	path := o.Path
	if open == nil {
		f, err := os.Open(path) // fail before the load starts, not at its first request
		if err != nil {
			return nil, fmt.Errorf("datasets: %s: %w", format, err)
		}
		f.Close()
		open = func() (io.ReadCloser, error) { return os.Open(path) }
	}
	params := map[string]any{ParamTraceScale: scale}
	if format == "mooncake" {
		params[ParamTraceBlockSize] = block
	}
	return &trace{
		spec: Spec{Name: format, Path: path, Seed: o.Seed, NumPrompts: o.NumPrompts,
			Params: params, Counting: o.Prompter.Method()},
		format: format, p: o.Prompter, scale: scale, block: block, open: open,
	}, nil
}

func (g *trace) Spec() Spec { return g.spec }

// Requests reads the trace anew on each call: one line at a time, so a
// trace of any length holds only the line in hand (and the reuse bitset,
// bounded by traces.MaxHashID).
func (g *trace) Requests() iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		f, err := g.open()
		if err != nil {
			yield(Request{}, fmt.Errorf("datasets: %s: %w", g.format, err))
			return
		}
		defer f.Close()
		rd, err := traces.Open(g.format, bufio.NewReaderSize(f, 64<<10), g.spec.Path)
		if err != nil {
			yield(Request{}, err)
			return
		}
		reuse := traces.Reuse{BlockSize: g.block}
		for i := 0; g.spec.NumPrompts == 0 || i < g.spec.NumPrompts; i++ {
			tr, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err == nil {
				var r Request
				if r, err = g.request(i, tr, &reuse); err == nil {
					if !yield(r, nil) {
						return
					}
					continue
				}
			}
			yield(Request{}, err)
			return
		}
	}
}

// request is trace line tr as request i.
func (g *trace) request(i int, tr traces.Request, reuse *traces.Reuse) (Request, error) {
	shared, err := reuse.Add(g.spec.Path, tr)
	if err != nil {
		return Request{}, err
	}
	texts := make([]string, 0, len(tr.HashIDs)+1)
	left := tr.InputTokens
	for _, id := range tr.HashIDs {
		if left == 0 {
			break // ids past the input length: the trace's input_length is the prompt's
		}
		n := min(g.block, left)
		texts = append(texts, g.p.Block(blockID(g.spec.Seed, id), n))
		left -= n
	}
	if left > 0 {
		// The line's own words: a PCG stream per line, apart from the
		// blocks' stream, so nothing beyond the trace's reuse is shared.
		texts = append(texts, g.p.Text(rand.New(rand.NewPCG(g.spec.Seed, uint64(tr.Line))), left))
	}
	r := Request{
		ID:           fmt.Sprintf("%s-%d", g.format, i),
		Messages:     []results.Message{{"role": "user", "content": Join(texts...)}},
		InputTokens:  tr.InputTokens,
		OutputTokens: tr.OutputTokens,
		PrefixTokens: shared,
		Arrival:      time.Duration(float64(tr.At) * g.scale),
		Timed:        true,
	}
	if len(tr.HashIDs) > 0 {
		r.Group = g.format // the whole trace is one prefix space
	}
	return r, nil
}

// blockID mixes the seed into a hash id, so another seed gives other
// block texts (a second run with a new seed does not hit the first's
// cache) while one seed keeps equal ids equal.
func blockID(seed uint64, id int64) uint64 {
	x := seed + 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return (x ^ (x >> 31)) ^ uint64(id)
}

// Scan reads the whole trace without building a prompt and returns the
// requests a replay sends (at most NumPrompts), or the first malformed
// line's error: what a replay checks before it sends anything, so a bad
// line near the end of a long trace does not stop the run half-way.
func (g *trace) Scan() (int, error) {
	f, err := g.open()
	if err != nil {
		return 0, fmt.Errorf("datasets: %s: %w", g.format, err)
	}
	defer f.Close()
	rd, err := traces.Open(g.format, bufio.NewReaderSize(f, 64<<10), g.spec.Path)
	if err != nil {
		return 0, err
	}
	reuse := traces.Reuse{BlockSize: g.block}
	n := 0
	for g.spec.NumPrompts == 0 || n < g.spec.NumPrompts {
		tr, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, err
		}
		if _, err := reuse.Add(g.spec.Path, tr); err != nil {
			return n, err
		}
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("datasets: %s: %s holds no request", g.format, g.spec.Path)
	}
	return n, nil
}
