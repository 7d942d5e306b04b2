package workloads

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchserve/benchserve/internal/paths"
)

// loadRequest reads the request file rp (~ expanded, relative to the
// workload's directory), returning it decoded and as written; nil, nil
// after reporting a problem.
func (p *parser) loadRequest(where at, rp string) (map[string]any, json.RawMessage) {
	full := paths.ExpandHome(rp)
	if !filepath.IsAbs(full) {
		full = filepath.Join(filepath.Dir(p.file), full)
	}
	if fi, err := os.Stat(full); err == nil && !fi.Mode().IsRegular() {
		p.add(where, "request_path", "%s: not a regular file", full)
		return nil, nil
	}
	data, err := readLimited(full)
	if err != nil {
		p.addErr(where, "request_path", err)
		return nil, nil
	}
	if off := invalidUTF8(data); off >= 0 {
		p.add(where, "request_path", "%s: invalid UTF-8 at byte offset %d (the reference refuses this file too)", rp, off)
		return nil, nil
	}
	v, err := decodeJSON(data)
	if err != nil {
		p.add(where, "request_path", "%s: %w", rp, err)
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.add(where, "request_path", "%s: want a JSON object, got %s", rp, describe(v))
		return nil, nil
	}
	return obj, data
}

// scalarsFromRequest reads the request file's scalars; its problems are
// reported under request_path, naming the file and key.
func (p *parser) scalarsFromRequest(where at, rp string, request map[string]any) scalarSet {
	// Reuse scalars, then prefix the field with the request file.
	n := len(p.problems)
	s := p.scalars(where, rp+": ", request)
	for _, fe := range p.problems[n:] {
		fe.Err = fmt.Errorf("%s: %w", fe.Field, fe.Err)
		fe.Field = "request_path"
	}
	return s
}
