package resultio

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/benchserve/benchserve/results"
)

// FormatCapacity renders a capacity search's result as the CLI's
// capacity.json: indented JSON, HTML characters unescaped (so
// "ttft_p95_ms <= 500" reads as written), no trailing newline.
func FormatCapacity(c results.Capacity) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("results: capacity json: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
